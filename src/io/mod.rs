//! File input and output: the input file list (paths, globs, mmap, zstd), format
//! detection, batching with global record indices, and the sharded writers.
