package audit

import "fmt"

// CheckStandbyApplyDelay is the ID of standbyApplyDelay: its page is docs/checks/standby-apply-delay.md.
const CheckStandbyApplyDelay CheckID = "standby-apply-delay"

// standbyApplyDelay: recovery_min_apply_delay > 0 is lag by design.
var standbyApplyDelay = Check{
	ID:       CheckStandbyApplyDelay,
	Title:    "recovery_min_apply_delay: the lag the standby keeps on purpose",
	Severity: Warning,
	Side:     StandbySide,
	Needs:    []Section{StandbySettings},
	Applies:  standbyApplies,
	Run: func(s Snapshots) []Finding {
		ms, ok := millis(s.Standby.Settings, "recovery_min_apply_delay")
		if !ok || ms <= 0 {
			return nil
		}
		delay := showMillis(ms)
		f := Finding{
			Objects:  []string{"setting recovery_min_apply_delay (standby)"},
			Severity: Info,
			Found:    fmt.Sprintf("recovery_min_apply_delay = %s on the standby: it applies each commit %s after the primary made it.", delay, delay),
			Why: fmt.Sprintf("A deliberate delay (a standby that lets a mistake be caught before it replays): its queries see data "+
				"at least %s old, its replay lag never falls below %s while the primary commits, and WAL for that long "+
				"is kept on the standby. lagscope diagnose names it replay-delayed, not a fault.", delay, delay),
			Fix: "Keep it if the standby is there to be behind. Otherwise set recovery_min_apply_delay to 0 on the standby and reload it: " +
				"it then replays what it has received at once.",
			Run: alterSystem(onStandby, "recovery_min_apply_delay", "0", false),
		}
		if coupled := remoteApplyCoupled(s); coupled != "" {
			f.Severity = Warning
			f.Why += " " + coupled + fmt.Sprintf(" Each commit on the primary therefore takes at least %s.", delay)
		}
		return []Finding{f}
	},
}
