#include "report/html_page.h"

#include "report/junit.h"
#include "report/table_cache_study.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace shale::report {
namespace {

using internal::json;

constexpr const char* kStyle = R"CSS(
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1280px;padding:0 16px 40px;color:#1d2330}
h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:26px 0 8px;border-bottom:1px solid #d8dce4}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #d8dce4;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f1f3f7}td.n{text-align:right;font-variant-numeric:tabular-nums}
.verdict{font-size:17px;font-weight:600}.good{color:#137333}.bad{color:#b3261e}
code,pre{font:12px/1.4 ui-monospace,monospace}pre{background:#f6f7f9;padding:8px;overflow:auto;max-height:420px}
.failure{border:1px solid #e3c0bd;border-radius:6px;padding:4px 14px 12px;margin:14px 0;background:#fffafa}
.check{border-left:4px solid #b3261e;padding:4px 10px;background:#fff;margin:6px 0}
.timeline{overflow-x:auto;border:1px solid #d8dce4;background:#fff}.legend span{margin-right:14px}
.sw{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
)CSS";

// Draws each failure's timeline (an SVG, a lane per task) from the data
// embedded in the page. No external code: the page works offline.
constexpr const char* kScript = R"JS(
(function(){
const data=JSON.parse(document.getElementById('shale-data').textContent);
const NS='http://www.w3.org/2000/svg';
const COLORS={io:'#7aa7e0',sync:'#1a56b0',fault:'#e8710a',crash:'#b3261e',disk:'#8e44ad',check:'#137333',task:'#9aa0a6',op:'#00897b',other:'#5f6368'};
function el(tag,attrs,text){const e=document.createElementNS(NS,tag);for(const k in attrs)e.setAttribute(k,attrs[k]);if(text!==undefined){const t=document.createElementNS(NS,'title');t.textContent=text;e.appendChild(t);}return e;}
function draw(f){
  const host=document.getElementById(f.id+'-timeline');
  if(!host||!f.events.length)return;
  const lanes=[];const laneOf={};
  function lane(name){const key=name||'(run)';if(!(key in laneOf)){laneOf[key]=lanes.length;lanes.push(key);}return laneOf[key];}
  lane('(run)');
  for(const e of f.events)if(e[2])lane(e[2]);
  const t0=f.events[0][0],t1=Math.max(t0+1,...f.events.map(e=>e[1]));
  const left=120,width=1100,laneH=22,top=24,h=top+lanes.length*laneH+40;
  const x=t=>left+(t-t0)/(t1-t0)*width;
  const svg=el('svg',{width:left+width+20,height:h,class:'timeline-svg','data-lanes':lanes.length});
  lanes.forEach((name,i)=>{svg.appendChild(el('rect',{x:0,y:top+i*laneH,width:left+width+20,height:laneH,fill:i%2?'#fafbfc':'#fff'}));
    const label=el('text',{x:4,y:top+i*laneH+15,'font-size':12,class:'lane'});label.textContent=name;svg.appendChild(label);});
  for(const e of f.events){
    const [s,end,task,kind,text]=e;const y=top+lane(task)*laneH;const c=COLORS[kind]||COLORS.other;
    if(kind==='io'||kind==='sync'){svg.appendChild(el('rect',{x:x(s),y:y+(kind==='sync'?3:6),width:Math.max(2,x(end)-x(s)),height:kind==='sync'?16:10,fill:c,class:'ev-'+kind},text));}
    else if(kind==='crash'||kind==='disk'){svg.appendChild(el('line',{x1:x(s),x2:x(s),y1:top,y2:top+lanes.length*laneH,stroke:c,'stroke-width':kind==='crash'?3:1.5,class:'ev-'+kind},text));}
    else if(kind==='fault'){svg.appendChild(el('path',{d:`M${x(s)} ${y+3}l6 14h-12z`,fill:c,class:'ev-fault'},text));}
    else{svg.appendChild(el('circle',{cx:x(s),cy:y+11,r:4,fill:c,class:'ev-'+kind},text));}
  }
  const fx=x(t1);
  svg.appendChild(el('line',{x1:fx,x2:fx,y1:top-6,y2:top+lanes.length*laneH,stroke:'#b3261e','stroke-dasharray':'4 3','stroke-width':2,class:'ev-failed-check'},f.check));
  const ft=el('text',{x:left,y:top+lanes.length*laneH+18,'font-size':12,fill:'#b3261e',class:'failed-check'});
  ft.textContent='failed check: '+f.check;svg.appendChild(ft);
  const axis=el('text',{x:left,y:14,'font-size':11,fill:'#5f6368'});axis.textContent='simulated time '+(t0/1e6).toFixed(3)+' ms .. '+(t1/1e6).toFixed(3)+' ms';svg.appendChild(axis);
  host.appendChild(svg);
}
data.failures.forEach(draw);
// ?focus=failure-N shows that section alone (a link to one failure).
const focus=new URLSearchParams(location.search).get('focus');
if(focus&&document.getElementById(focus)){for(const s of document.querySelectorAll('body > section'))if(s.id!==focus)s.style.display='none';}
})();
)JS";

std::string Row(const std::vector<std::string>& cells, const char* tag = "td") {
  std::string row = "<tr>";
  for (const std::string& c : cells) row += std::string("<") + tag + ">" + c + "</" + tag + ">";
  return row + "</tr>\n";
}

std::string Fixed(double value, int decimals) { return absl::StrFormat("%.*f", decimals, value); }

// A horizontal bar chart, one bar per (name, value), as inline SVG.
std::string BarChart(const std::vector<std::pair<std::string, uint64_t>>& bars, const char* id) {
  uint64_t top = 1;
  for (const auto& [name, n] : bars) top = std::max(top, n);
  const int row = 16, label = 300, width = 500;
  std::string svg = "<svg id=\"" + std::string(id) + "\" width=\"" +
                    std::to_string(label + width + 80) + "\" height=\"" +
                    std::to_string(row * static_cast<int>(bars.size()) + 4) + "\">";
  int y = 0;
  for (const auto& [name, n] : bars) {
    const double w = static_cast<double>(n) / static_cast<double>(top) * width;
    svg += "<text x=\"0\" y=\"" + std::to_string(y + 12) + "\" font-size=\"11\">" +
           XmlEscape(name) + "</text><rect x=\"" + std::to_string(label) + "\" y=\"" +
           std::to_string(y + 2) + "\" width=\"" + Fixed(std::max(w, 1.0), 1) +
           "\" height=\"12\" fill=\"#e8710a\"><title>" + XmlEscape(name) + ": " +
           std::to_string(n) + "</title></rect><text x=\"" + Fixed(label + w + 4, 1) + "\" y=\"" +
           std::to_string(y + 12) + "\" font-size=\"11\">" + std::to_string(n) + "</text>";
    y += row;
  }
  return svg + "</svg>\n";
}

// Seeds finished per second over the campaign, as a line of inline SVG
// (each kept finish time stands for weight seeds).
std::string SeedsOverTime(std::vector<uint64_t> done_ms, uint64_t weight) {
  std::sort(done_ms.begin(), done_ms.end());
  if (done_ms.empty() || done_ms.back() == 0) return "";
  constexpr int kBuckets = 40;
  const double span = static_cast<double>(done_ms.back());
  std::vector<uint64_t> per(kBuckets, 0);
  for (uint64_t ms : done_ms) {
    per[std::min<size_t>(kBuckets - 1, static_cast<size_t>(ms / span * kBuckets))] += weight;
  }
  const double bucket_s = span / kBuckets / 1000.0;
  double top = 1;
  for (uint64_t n : per) top = std::max(top, static_cast<double>(n) / bucket_s);
  const int w = 700, h = 140;
  std::string points;
  for (int i = 0; i < kBuckets; i++) {
    const double rate = static_cast<double>(per[i]) / bucket_s;
    points +=
        Fixed(40 + (i + 0.5) * w / kBuckets, 1) + "," + Fixed(10 + h - rate / top * h, 1) + " ";
  }
  return "<svg id=\"seeds-per-second\" width=\"" + std::to_string(w + 60) + "\" height=\"" +
         std::to_string(h + 36) +
         "\"><polyline fill=\"none\" stroke=\"#1a56b0\" stroke-width=\"2\" points=\"" + points +
         "\"/><text x=\"0\" y=\"14\" font-size=\"11\">" + Fixed(top, 1) +
         "/s</text><text x=\"0\" y=\"" + std::to_string(h + 10) +
         "\" font-size=\"11\">0</text><text x=\"40\" y=\"" + std::to_string(h + 30) +
         "\" font-size=\"11\">seeds finished per second, over " + Fixed(span / 1000.0, 1) +
         " s</text></svg>\n";
}

}  // namespace

std::string FailureFileOfReplay(const std::string& replay) {
  const std::string prefix = "build/shale replay ";
  return replay.rfind(prefix, 0) == 0 ? replay.substr(prefix.size()) : "";
}

HtmlPage::HtmlPage(const std::string& title) {
  html_ = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
          XmlEscape(title) + "</title><style>" + kStyle + "</style></head><body>\n<h1>" +
          XmlEscape(title) + "</h1>\n";
}

void HtmlPage::Summary(const ReportHeader& header, const Totals& t) {
  const CampaignInfo& c = header.campaign;
  html_ += "<section id=\"summary\"><h2>Summary</h2>\n<p class=\"verdict " +
           std::string(t.failed ? "bad" : "good") + "\">" + std::to_string(t.seeds) + " seeds, " +
           std::to_string(t.passed) + " passed, " + std::to_string(t.failed) + " failed" +
           (header.complete ? "" : " (the campaign had not finished)") + "</p>\n<table>\n";
  html_ += Row({"scenarios", XmlEscape(absl::StrJoin(c.scenarios, ", "))});
  html_ += Row({"engine", XmlEscape(EngineDescription(c))});
  html_ +=
      Row({"seeds", XmlEscape(c.seeds) + (c.shard.empty() ? "" : ", shard " + XmlEscape(c.shard))});
  if (!c.merged_from.empty())
    html_ += Row({"merged from", XmlEscape(absl::StrJoin(c.merged_from, ", "))});
  html_ += Row({"wall time", Fixed(static_cast<double>(c.wall_ms) / 1000.0, 1) + " s"});
  html_ += Row({"workload ops", std::to_string(t.ops)});
  html_ += Row({"engine ops", std::to_string(t.engine_ops)});
  html_ += Row({"crashes", std::to_string(t.crashes)});
  html_ += Row({"simulated time", Fixed(static_cast<double>(t.sim_time_ns) / 1e9, 3) + " s"});
  uint64_t ended_early = 0;
  for (const auto& [reason, n] : t.ended_early) ended_early += n;
  html_ += Row({"runs ending before their last phase", std::to_string(ended_early)});
  html_ += "</table></section>\n";
}

void HtmlPage::FailuresByProperty(const Totals& t, const std::vector<SeedEntry>& failed,
                                  size_t with_section) {
  html_ += "<section id=\"failures\"><h2>Failures by property</h2>\n";
  if (t.failed == 0) {
    html_ += "<p>None.</p></section>\n";
    return;
  }
  html_ += "<table>" + Row({"property", "seeds"}, "th");
  for (const auto& [property, n] : t.failures_by_property) {
    html_ += Row({XmlEscape(property), std::to_string(n)});
  }
  html_ += "</table>\n<table id=\"failure-table\">" +
           Row({"scenario", "seed", "property", "what failed"}, "th");
  size_t n = 0;
  for (const SeedEntry& e : failed) {
    ++n;
    const std::string seed = std::to_string(e.result.seed);
    const std::string link = n <= with_section
                                 ? "<a href=\"#failure-" + std::to_string(n) + "\">" + seed + "</a>"
                                 : seed;
    html_ += Row({XmlEscape(e.result.scenario), link, XmlEscape(e.result.failure.property),
                  XmlEscape(e.result.failure.message)});
  }
  html_ += "</table>";
  if (t.failed > failed.size()) {
    html_ += "<p>... and " + std::to_string(t.failed - failed.size()) + " more failed seeds.</p>";
  }
  html_ += "</section>\n";
}

void HtmlPage::Scenarios(const std::map<std::string, ScenarioFigures>& by) {
  html_ += "<section id=\"scenarios\"><h2>Scenarios</h2>\n<table>" +
           Row({"scenario", "seeds", "passed", "failed", "workload ops", "crashes",
                "seeds per core-second", "rechecked"},
               "th");
  for (const auto& [name, f] : by) {
    const double rate =
        f.worker_ms ? static_cast<double>(f.seeds) * 1000.0 / static_cast<double>(f.worker_ms) : 0;
    html_ += Row({XmlEscape(name), std::to_string(f.seeds), std::to_string(f.seeds - f.failed),
                  std::to_string(f.failed), std::to_string(f.ops), std::to_string(f.crashes),
                  Fixed(rate, 1), std::to_string(f.rechecked)});
  }
  html_ += "</table></section>\n";
}

void HtmlPage::Promises(const std::vector<PromiseVerdict>& verdicts) {
  if (verdicts.empty()) return;
  html_ += "<section id=\"promises\"><h2>Promises</h2>\n<table>" +
           Row({"scenario", "mode", "promise", "verdict"}, "th");
  for (const PromiseVerdict& v : verdicts) {
    html_ += Row({XmlEscape(v.scenario), XmlEscape(v.mode), XmlEscape(v.promise),
                  XmlEscape(DescribeVerdict(v))});
  }
  html_ += "</table></section>\n";
}

void HtmlPage::Faults(const Totals& t) {
  html_ += "<section id=\"faults\"><h2>Faults by kind</h2>\n";
  if (t.faults_by_kind.empty()) {
    html_ += "<p>None injected.</p></section>\n";
    return;
  }
  std::vector<std::pair<std::string, uint64_t>> bars(t.faults_by_kind.begin(),
                                                     t.faults_by_kind.end());
  std::stable_sort(bars.begin(), bars.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  html_ += BarChart(bars, "faults-chart") + "</section>\n";
}

void HtmlPage::Throughput(uint64_t wall_ms, const Totals& t, const HtmlDigest& digest) {
  const double wall_s = static_cast<double>(wall_ms) / 1000.0;
  const double core_s = static_cast<double>(digest.tally().worker_ms()) / 1000.0;
  const auto per = [](uint64_t n, double s) {
    return s > 0 ? Fixed(static_cast<double>(n) / s, 1) : "-";
  };
  html_ += "<section id=\"throughput\"><h2>Throughput</h2>\n<table>" +
           Row({"", "seeds", "workload ops", "engine ops"}, "th") +
           Row({"per second of wall time", per(t.seeds, wall_s), per(t.ops, wall_s),
                per(t.engine_ops, wall_s)}) +
           Row({"per worker second (one core)", per(t.seeds, core_s), per(t.ops, core_s),
                per(t.engine_ops, core_s)}) +
           "</table>\n" + SeedsOverTime(digest.finish_times_ms(), digest.finish_time_weight()) +
           "</section>\n";
}

void HtmlPage::Studies(const Totals& t) {
  const TableCacheStudy study = ComputeTableCacheStudy(t.table_cache);
  if (study.rows.empty()) return;
  html_ += "<section id=\"table-cache\"><h2>Table-cache study</h2>\n" + TableCacheSvg(study) +
           "<pre>" + XmlEscape(TableCacheMarkdown(study)) + "</pre></section>\n";
}

void HtmlPage::Coverage(const Totals& t) {
  html_ += "<section id=\"coverage\"><h2>Coverage probes and the determinism recheck</h2>\n";
  if (t.probe_counted_seeds == 0) {
    html_ += "<p>No seed counted probes (only simulated runs do).</p>\n";
  } else {
    const std::vector<std::string> never = ProbesNeverHit(t);
    html_ += "<p id=\"probes-reached\">" + std::to_string(t.probe_seeds.size() - never.size()) +
             " of " + std::to_string(t.probe_seeds.size()) + " probes reached in " +
             std::to_string(t.probe_counted_seeds) + " simulated seeds.</p>\n";
    if (!never.empty()) {
      html_ += "<p>Never hit:</p><ul id=\"probes-never-hit\">";
      for (const std::string& name : never)
        html_ += "<li><code>" + XmlEscape(name) + "</code></li>";
      html_ += "</ul>\n";
    }
  }
  const auto nd = t.failures_by_property.find("nondeterminism");
  html_ += "<p>Determinism recheck: " + std::to_string(t.rechecked) +
           " seeds re-run in another worker, " +
           std::to_string(nd == t.failures_by_property.end() ? 0 : nd->second) +
           " ran differently.</p></section>\n";
}

json HtmlPage::Failure(size_t n, const SeedEntry& e, const std::vector<TimelineEvent>& events,
                       const std::vector<std::string>& trace) {
  const scenario::Failure& f = e.result.failure;
  const std::string id = "failure-" + std::to_string(n);
  const std::string check = f.property + (f.key.empty() ? "" : " key '" + f.key + "'") +
                            ": expected '" + f.expected + "', observed '" + f.observed + "'";
  html_ += "<section class=\"failure\" id=\"" + id + "\"><h2>Failure " + std::to_string(n) + ": " +
           XmlEscape(e.result.scenario) + " seed " + std::to_string(e.result.seed) + "</h2>\n" +
           "<div class=\"check\"><b>" + XmlEscape(f.property) + "</b>" +
           (f.key.empty() ? "" : " key <code>" + XmlEscape(f.key) + "</code>") +
           "<br>expected: <code>" + XmlEscape(f.expected) + "</code><br>observed: <code>" +
           XmlEscape(f.observed) + "</code><br>" + XmlEscape(f.message) + "</div>\n";
  html_ += "<p>Replay: <code>" + XmlEscape(e.replay) + "</code><br>Shrink: <code>" +
           XmlEscape("build/shale shrink " + FailureFileOfReplay(e.replay)) +
           "</code><br>Trace: <code>" + XmlEscape(e.replay) + " --trace</code></p>\n";
  if (events.empty()) {
    html_ +=
        "<p>No timeline: the seed's trace was not collected (a real run, or the replay "
        "failed).</p></section>\n";
  } else {
    html_ +=
        "<p class=\"legend\"><span><i class=\"sw\" style=\"background:#7aa7e0\"></i>I/O call</span>"
        "<span><i class=\"sw\" style=\"background:#1a56b0\"></i>sync</span>"
        "<span><i class=\"sw\" style=\"background:#e8710a\"></i>injected fault</span>"
        "<span><i class=\"sw\" style=\"background:#b3261e\"></i>crash / failed check</span>"
        "<span><i class=\"sw\" style=\"background:#8e44ad\"></i>what a crash kept and lost</span>"
        "<span><i class=\"sw\" style=\"background:#137333\"></i>check</span>"
        "<span><i class=\"sw\" style=\"background:#00897b\"></i>workload operation</span></p>\n"
        "<div class=\"timeline\" id=\"" +
        id +
        "-timeline\"></div>\n"
        "<details><summary>Plain-text trace (" +
        std::to_string(trace.size()) + " events)</summary><pre>";
    for (const std::string& line : trace) html_ += XmlEscape(line) + "\n";
    html_ += "</pre></details></section>\n";
  }
  json rows = json::array();
  for (const TimelineEvent& ev : events) {
    rows.push_back(json::array({ev.start_ns, ev.end_ns, ev.task, ev.kind, ev.text}));
  }
  return json{{"id", id},
              {"scenario", e.result.scenario},
              {"seed", e.result.seed},
              {"check", check},
              {"events", rows}};
}

void HtmlPage::EmbedData(const json& data) {
  std::string text = internal::JsonText(data);
  // "</" would end the script element early; JSON allows "<\/".
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3)) {
    text.replace(at, 2, "<\\/");
  }
  html_ += "<script id=\"shale-data\" type=\"application/json\">" + text + "</script>\n";
}

std::string HtmlPage::Finish() {
  return html_ + "<script>" + kScript + "</script>\n</body></html>\n";
}

}  // namespace shale::report
