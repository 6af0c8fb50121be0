//! The scheduler task a lock holder runs as, so that a later attempt of the same task may
//! take over the lock its predecessor left on another host.
//!
//! # Contract
//! - [`SchedulerTask::from_env`] reads the task from the environment the scheduler gives:
//!   - Slurm: `SLURM_CLUSTER_NAME` (if set), the job (`SLURM_ARRAY_JOB_ID` `_`
//!     `SLURM_ARRAY_TASK_ID` for an array task, else `SLURM_JOB_ID`) and the attempt,
//!     `SLURM_RESTART_COUNT` (unset: 0, the first attempt).
//!   - A Kubernetes Indexed Job's pod: `JOB_COMPLETION_INDEX`, and what the pod template
//!     passes through the downward API (examples/kubernetes): `POSFILTER_JOB_UID` (the
//!     label `batch.kubernetes.io/controller-uid`), `POSFILTER_POD_NAME`, and the attempt,
//!     the index's failures before this pod (`POSFILTER_INDEX_FAILURES` and
//!     `POSFILTER_INDEX_IGNORED_FAILURES`, the annotations
//!     `batch.kubernetes.io/job-index-failure-count` and `…-ignored-failure-count`; unset or
//!     empty: 0).
//!   - None otherwise, or when a value is malformed (then nothing is ever taken over).
//! - [`SchedulerTask::supersedes`]: the same task (cluster and job, or job uid and index)
//!   in a strictly later attempt. A different task, or an equal or earlier attempt, never
//!   supersedes: two tasks given one output by mistake are still refused.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The scheduler's identity of the task a process runs as, with its attempt.
/// Invariant: `job` / `job_uid` are non-empty; the attempt counts up from 0 across retries
/// of one task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "scheduler", rename_all = "lowercase")]
pub enum SchedulerTask {
    /// A Slurm job, or a task of an array job.
    Slurm {
        /// `SLURM_CLUSTER_NAME`, if set.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cluster: Option<String>,
        /// `ARRAY_JOB_ID_TASK_ID` for an array task, else the job id.
        job: String,
        /// `SLURM_RESTART_COUNT`: how often the job was requeued before this attempt.
        restart: u32,
    },
    /// A pod of a Kubernetes Indexed Job.
    Kubernetes {
        /// The Job's uid (a Job deleted and created again under its name gets another).
        job_uid: String,
        /// `JOB_COMPLETION_INDEX`.
        index: u32,
        /// The pod's name, if passed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pod: Option<String>,
        /// Failed pods of this index before this one (counted and ignored failures).
        retry: u32,
    },
}

impl SchedulerTask {
    /// The task this process runs as, from its environment.
    pub fn from_env() -> Option<SchedulerTask> {
        SchedulerTask::from_vars(|name| std::env::var(name).ok())
    }

    /// The task from the variables `var` gives (see the module).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Option<SchedulerTask> {
        let set = |name: &str| var(name).filter(|v| !v.is_empty());
        if let Some(job_id) = set("SLURM_JOB_ID") {
            let job = match (set("SLURM_ARRAY_JOB_ID"), set("SLURM_ARRAY_TASK_ID")) {
                (Some(array), Some(task)) => format!("{}_{}", id(&array)?, id(&task)?),
                _ => id(&job_id)?.to_string(),
            };
            return Some(SchedulerTask::Slurm {
                cluster: set("SLURM_CLUSTER_NAME"),
                job,
                restart: count(set("SLURM_RESTART_COUNT"))?,
            });
        }
        let index = set("JOB_COMPLETION_INDEX")?.parse().ok()?;
        let job_uid = set("POSFILTER_JOB_UID")?;
        let failures = count(set("POSFILTER_INDEX_FAILURES"))?;
        let ignored = count(set("POSFILTER_INDEX_IGNORED_FAILURES"))?;
        Some(SchedulerTask::Kubernetes {
            job_uid,
            index,
            pod: set("POSFILTER_POD_NAME"),
            retry: failures.checked_add(ignored)?,
        })
    }

    /// Whether `self` is a later attempt of the task `earlier` ran as.
    pub fn supersedes(&self, earlier: &SchedulerTask) -> bool {
        match (self, earlier) {
            (
                SchedulerTask::Slurm {
                    cluster,
                    job,
                    restart,
                },
                SchedulerTask::Slurm {
                    cluster: c,
                    job: j,
                    restart: r,
                },
            ) => cluster == c && job == j && restart > r,
            (
                SchedulerTask::Kubernetes {
                    job_uid,
                    index,
                    retry,
                    ..
                },
                SchedulerTask::Kubernetes {
                    job_uid: u,
                    index: i,
                    retry: r,
                    ..
                },
            ) => job_uid == u && index == i && retry > r,
            _ => false,
        }
    }
}

/// A scheduler id: digits only.
fn id(text: &str) -> Option<&str> {
    text.bytes().all(|b| b.is_ascii_digit()).then_some(text)
}

/// A count that is 0 when unset; `None` when malformed.
fn count(text: Option<String>) -> Option<u32> {
    text.map_or(Some(0), |t| t.parse().ok())
}

impl fmt::Display for SchedulerTask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchedulerTask::Slurm {
                cluster,
                job,
                restart,
            } => {
                write!(f, "Slurm job {job}")?;
                if let Some(cluster) = cluster {
                    write!(f, " on cluster {cluster}")?;
                }
                write!(f, ", restart {restart}")
            }
            SchedulerTask::Kubernetes {
                job_uid,
                index,
                pod,
                retry,
            } => {
                write!(f, "Kubernetes job {job_uid} index {index}")?;
                if let Some(pod) = pod {
                    write!(f, " pod {pod}")?;
                }
                write!(f, ", retry {retry}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SchedulerTask;

    fn task(vars: &[(&str, &str)]) -> Option<SchedulerTask> {
        SchedulerTask::from_vars(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        })
    }

    fn slurm(cluster: Option<&str>, job: &str, restart: u32) -> SchedulerTask {
        SchedulerTask::Slurm {
            cluster: cluster.map(str::to_string),
            job: job.into(),
            restart,
        }
    }

    fn pod(uid: &str, index: u32, pod: &str, retry: u32) -> SchedulerTask {
        SchedulerTask::Kubernetes {
            job_uid: uid.into(),
            index,
            pod: Some(pod.into()),
            retry,
        }
    }

    #[test]
    fn slurm_tasks_are_read_from_the_environment() {
        let array = [
            ("SLURM_JOB_ID", "1207"),
            ("SLURM_ARRAY_JOB_ID", "1200"),
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_CLUSTER_NAME", "hpc"),
            ("SLURM_RESTART_COUNT", "2"),
        ];
        assert_eq!(task(&array), Some(slurm(Some("hpc"), "1200_7", 2)));
        // Not an array job, first attempt, no cluster name.
        assert_eq!(
            task(&[("SLURM_JOB_ID", "88"), ("SLURM_RESTART_COUNT", "")]),
            Some(slurm(None, "88", 0))
        );
        // Slurm wins over a completion index (a pod cannot hold SLURM_JOB_ID by accident).
        let both = [("SLURM_JOB_ID", "5"), ("JOB_COMPLETION_INDEX", "1")];
        assert_eq!(task(&both), Some(slurm(None, "5", 0)));
        // Malformed: no identity, so nothing is taken over.
        assert_eq!(task(&[("SLURM_JOB_ID", "5x")]), None);
        let bad_count = [("SLURM_JOB_ID", "5"), ("SLURM_RESTART_COUNT", "one")];
        assert_eq!(task(&bad_count), None);
        let bad_task = [
            ("SLURM_JOB_ID", "5"),
            ("SLURM_ARRAY_JOB_ID", "4"),
            ("SLURM_ARRAY_TASK_ID", "-1"),
        ];
        assert_eq!(task(&bad_task), None);
        assert_eq!(task(&[]), None);
    }

    #[test]
    fn kubernetes_pods_are_read_from_the_environment() {
        let vars = [
            ("JOB_COMPLETION_INDEX", "3"),
            ("POSFILTER_JOB_UID", "0b5e-11"),
            ("POSFILTER_POD_NAME", "posfilter-shard-3-x7k2p"),
            ("POSFILTER_INDEX_FAILURES", "1"),
            ("POSFILTER_INDEX_IGNORED_FAILURES", "2"),
        ];
        assert_eq!(
            task(&vars),
            Some(pod("0b5e-11", 3, "posfilter-shard-3-x7k2p", 3))
        );
        // Annotations the Job does not set (no backoffLimitPerIndex) come through empty.
        let first = [
            ("JOB_COMPLETION_INDEX", "0"),
            ("POSFILTER_JOB_UID", "u"),
            ("POSFILTER_INDEX_FAILURES", ""),
        ];
        let expected = SchedulerTask::Kubernetes {
            job_uid: "u".into(),
            index: 0,
            pod: None,
            retry: 0,
        };
        assert_eq!(task(&first), Some(expected));
        // An index without the Job's uid cannot tell two Jobs apart.
        assert_eq!(task(&[("JOB_COMPLETION_INDEX", "0")]), None);
        let bad = [("JOB_COMPLETION_INDEX", "x"), ("POSFILTER_JOB_UID", "u")];
        assert_eq!(task(&bad), None);
    }

    #[test]
    fn only_a_later_attempt_of_the_same_task_supersedes() {
        let first = slurm(Some("hpc"), "1200_7", 0);
        let cases = [
            (slurm(Some("hpc"), "1200_7", 1), true),
            (slurm(Some("hpc"), "1200_7", 5), true),
            (slurm(Some("hpc"), "1200_7", 0), false), // the same attempt
            (slurm(Some("hpc"), "1200_8", 1), false), // another task of the array
            (slurm(Some("hpc"), "1300_7", 1), false), // another job, the same index
            (slurm(Some("gpu"), "1200_7", 1), false), // another cluster
            (slurm(None, "1200_7", 1), false),
            (pod("1200_7", 7, "p", 1), false),
        ];
        for (later, expected) in cases {
            assert_eq!(later.supersedes(&first), expected, "{later} after {first}");
        }
        // An earlier attempt never takes a later one's lock.
        assert!(!first.supersedes(&slurm(Some("hpc"), "1200_7", 1)));

        let first = pod("uid-a", 3, "shard-3-aaaaa", 0);
        let cases = [
            (pod("uid-a", 3, "shard-3-bbbbb", 1), true),
            (pod("uid-a", 3, "shard-3-bbbbb", 0), false), // no later retry
            (pod("uid-a", 4, "shard-4-bbbbb", 1), false), // another index
            (pod("uid-b", 3, "shard-3-bbbbb", 1), false), // another Job, the same name
            (slurm(None, "3", 1), false),
        ];
        for (later, expected) in cases {
            assert_eq!(later.supersedes(&first), expected, "{later} after {first}");
        }
        assert!(!first.supersedes(&pod("uid-a", 3, "shard-3-bbbbb", 1)));
    }

    /// The lock's decision: another host's lock is taken over only by a later attempt of
    /// its task; on this host the holder's process decides, whatever the task.
    #[test]
    fn another_hosts_lock_is_taken_over_only_by_a_later_attempt() {
        use super::super::{HolderState, LockHolder};
        let holder = |host: &str, task: Option<SchedulerTask>| LockHolder {
            host: host.into(),
            task,
            ..LockHolder::this_process("posfilter run --shard auto")
        };
        let job = |restart| Some(slurm(None, "500_0", restart));
        let state = |held: &LockHolder, me: &LockHolder| held.state(me);
        let me = holder("node-b", job(1));
        let cases = [
            (holder("node-a", job(0)), HolderState::Superseded),
            (holder("node-a", job(1)), HolderState::Foreign),
            (holder("node-a", job(2)), HolderState::Foreign),
            (
                holder("node-a", Some(slurm(None, "500_1", 0))),
                HolderState::Foreign,
            ),
            (
                holder("node-a", Some(slurm(None, "501_0", 0))),
                HolderState::Foreign,
            ),
            (holder("node-a", None), HolderState::Foreign),
            // This process, alive on this host, as an earlier attempt: still running.
            (holder("node-b", job(0)), HolderState::Running),
        ];
        for (held, expected) in cases {
            assert_eq!(state(&held, &me), expected, "{held}");
        }
        // Without a task of its own a process takes over no other host's lock.
        let untasked = holder("node-b", None);
        assert_eq!(
            state(&holder("node-a", job(0)), &untasked),
            HolderState::Foreign
        );
        let k8s = |p: &str, retry| Some(pod("uid-a", 2, p, retry));
        let me = holder("shard-2-b", k8s("shard-2-b", 1));
        let held = holder("shard-2-a", k8s("shard-2-a", 0));
        assert_eq!(state(&held, &me), HolderState::Superseded);
        assert_eq!(state(&me, &held), HolderState::Foreign);
    }

    #[test]
    fn tasks_round_trip_through_the_lock_file() {
        for t in [slurm(Some("hpc"), "1_2", 3), pod("u", 1, "p", 2)] {
            let text = serde_json::to_string(&t).unwrap();
            assert_eq!(serde_json::from_str::<SchedulerTask>(&text).unwrap(), t);
        }
        let text = serde_json::to_string(&slurm(None, "9", 0)).unwrap();
        assert_eq!(text, r#"{"scheduler":"slurm","job":"9","restart":0}"#);
    }
}
