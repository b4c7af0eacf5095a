# Sourced by the ci/ scripts that run ASan+UBSan binaries. Any report
# aborts the process, leaks included. The quarantine (freed memory held
# back so a use after free hits poisoned bytes) is 64 MiB instead of
# ASan's 256 MiB: a simulated run allocates at a high rate, and at 256 MiB
# nearly every allocation lands on a fresh page, whose fault is most of the
# suite's time on a virtual machine; 64 MiB still holds thousands of
# allocations' worth of freed blocks.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:quarantine_size_mb=64"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
