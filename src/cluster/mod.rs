//! Beyond one machine: the stages a scheduler (Slurm array jobs, Kubernetes Indexed Jobs)
//! runs to clean one input with many tasks, whose merged output is byte-identical to one
//! `posfilter run` of the same configuration.
//!
//! ```text
//! 1. shard   posfilter run CONFIG --shard I/N --out S_I       N tasks, any order
//!            the input cut by io::shard_plan (the same plan in every task); part I run as
//!            a run does, dedup aside: each kept position's key and global index go to
//!            M sorted key runs (io::key_run), one per key bucket; then shard.json
//! 2. reduce  posfilter merge --dedup-partition J/M S_0 … S_N-1 --out D     M tasks
//!            bucket J of every shard merged: the later records of each position, and those
//!            of a reference pool, listed as duplicates (io::dup_list)  [`reduce`]
//! 3. gather  posfilter merge S_0 … S_N-1 --dedup D --out OUT          one task
//! ```
//!
//! Every stage checks that the shard directories it is given are the complete shards of
//! one job ([`manifest`]) and names any that is missing, incomplete or of another job.

pub mod gather;
pub mod manifest;
pub mod reduce;
pub mod shard;
