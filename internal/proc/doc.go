// Package proc reads per-process and whole-host CPU figures from Linux's /proc.
//
// Reading and deciding are separate. [FS.Process] and [FS.Host] return plain
// cumulative counters (a [ProcSample], a [HostSample]); the pure functions
// [Share] and [HostBusy] turn two samples and the wall time between them into
// fractions. Callers take the timestamps, so nothing here calls time.Now.
//
// The /proc root is a parameter of [NewFS], so tests read recorded fixtures
// under testdata/ instead of the live system:
//
//	fs, err := proc.NewFS("") // the real /proc
//	prev, err := fs.Process(pid)
//	// ... wait, then sample again ...
//	cur, err := fs.Process(pid)
//	cpu, runq := proc.Share(prev, cur, wall) // 0.93, 0.40: 93% of a core on CPU, 40% waiting for one
//
// [ParseCPUList] and [FormatCPUList] convert the kernel's "0-2,5" notation
// (the lab pins its servers with taskset).
//
// Field meanings and units follow proc_pid_stat(5) and the kernel's
// Documentation/scheduler/sched-stats.rst.
package proc
