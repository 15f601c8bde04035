package audit

import "fmt"

// CheckStandbyFeedbackXmin is the ID of standbyFeedbackXmin: its page is docs/checks/standby-feedback-xmin.md.
const CheckStandbyFeedbackXmin CheckID = "standby-feedback-xmin"

// standbyFeedbackXmin: hot_standby_feedback = on moves the cost of the
// standby's queries to the primary's vacuum; with --primary, the xmin age
// it holds there (the slot's xmin, or the walsender's backend_xmin).
var standbyFeedbackXmin = Check{
	ID:       CheckStandbyFeedbackXmin,
	Title:    "hot_standby_feedback and the xmin it holds on the primary",
	Severity: Warning,
	Side:     StandbySide,
	Needs:    []Section{StandbySettings},
	Applies:  standbyApplies,
	Run: func(s Snapshots) []Finding {
		sb := s.Standby
		if sb.Settings["hot_standby_feedback"].Value != "on" {
			return nil
		}
		f := Finding{
			Objects:  []string{"setting hot_standby_feedback (standby)"},
			Severity: Info,
			Why: "The standby tells the primary the oldest transaction its queries still see: VACUUM on the primary keeps every row " +
				"version deleted after it, so a long standby query bloats the primary's tables (and holds back freezing) instead of " +
				"being cancelled or holding back replay.",
		}
		held, where := feedbackXmin(s)
		switch {
		case s.Primary == nil:
			f.Found = "hot_standby_feedback = on on the standby; the xmin it holds on the primary cannot be measured without --primary."
		case where != "":
			f.Found = "hot_standby_feedback = on on the standby; " + where + "."
		case held < 0:
			f.Found = "hot_standby_feedback = on on the standby; it holds no xmin on the primary now (no standby query holds a snapshot)."
		default:
			f.Found = fmt.Sprintf("hot_standby_feedback = on on the standby; it holds xmin %d transactions back on the primary: VACUUM there keeps every row version deleted in those transactions.", held)
			if limit, ok := s.Primary.Settings.Int("autovacuum_freeze_max_age"); ok && held >= limit/2 {
				f.Severity = Warning
				f.Found += fmt.Sprintf(" That is past half of the primary's autovacuum_freeze_max_age (%d): freezing cannot pass it either.", limit)
			}
			if sl := s.primarySlot(); sl != nil && !sl.Active {
				f.Severity = Warning
				f.Found += fmt.Sprintf(" The standby's slot %s is inactive: it holds that xmin until the standby returns or the slot is dropped.", id(sl.Name))
			}
		}
		if sb.Settings["sync_replication_slots"].Value == "on" {
			f.Fix = "Keep it: the standby synchronises the primary's failover slots (sync_replication_slots = on), which needs " +
				"hot_standby_feedback. End long standby queries instead (pg_stat_activity on the standby, backend_xmin)."
			return []Finding{f}
		}
		f.Fix = "If the primary's bloat costs more than cancelled standby queries, turn hot_standby_feedback off on the standby and " +
			"reload it: the primary's VACUUM then removes rows as usual, and a standby query that conflicts with replay waits at most " +
			"max_standby_streaming_delay before it is cancelled."
		run := alterSystem(onStandby, "hot_standby_feedback", "off", false)
		run[0] = run[0].WithNote("standby queries that conflict with cleanup are cancelled from then on")
		f.Run = run
		return []Finding{f}
	},
}

// feedbackXmin is the age of the xmin the standby's feedback holds on the
// primary: its slot's xmin, or its walsender's backend_xmin (-1 when none);
// where says why it could not be read ("" when it was).
func feedbackXmin(s Snapshots) (age int64, where string) {
	if s.Primary == nil {
		return -1, ""
	}
	if sl := s.primarySlot(); sl != nil {
		if _, bad := s.Primary.Unreadable[PrimarySlots]; !bad {
			return sl.XminAge, ""
		}
	}
	w, why := s.feed()
	if w == nil {
		if why == "" {
			why = "the primary's walsenders could not be read"
		}
		return -1, "the xmin it holds on the primary could not be read: " + why
	}
	return w.XminAge, ""
}
