# The libFuzzer options every decoder session and the CI pass share:
#   max_len 64 KiB: two WAL blocks, or an SST of a few dozen blocks;
#   malloc_limit_mb 256: any single allocation larger than this is a crash
#     (a decoder allocating for a length it never bounded);
#   rss_limit_mb 1024, timeout 10 s: runaway memory or loops are crashes.
SHALE_FUZZ_OPTIONS=(-max_len=65536 -malloc_limit_mb=256 -rss_limit_mb=1024 -timeout=10
                    -print_final_stats=1)
