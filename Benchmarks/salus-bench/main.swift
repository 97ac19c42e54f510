print("benchmarks: see make bench")
