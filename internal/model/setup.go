package model

import (
	"slices"
	"strings"
)

// Setup is what the pair's setup (subscription options, replica
// identities, indexes, triggers, publications) says about one path's
// verdict, in the terms of its texts: package diagnose reads it from the
// catalogs, scoped to the path's subscription and tables, and Explain
// combines it with the verdict's own cause and advice.
type Setup struct {
	// Causes are the setup's findings named as the cause, most telling
	// first (nil: none).
	Causes []string
	// Fixes are the remedies of the setup's findings, in the order they
	// come before the verdict's own (nil: none).
	Fixes []Advice
	// RuledOut are the verdict's remedies the setup rules out: set
	// already, not in these versions, nothing to fix, or named by a fix
	// with its statement (nil: none).
	RuledOut []RemedyID
	// Subscription is the path's subscription as the setup read it from
	// the subscriber's catalog ("" not read): the remedies that set one of
	// its options then carry their ALTER SUBSCRIPTION statement.
	Subscription string
	// Moot are the verdict's "does not help" lines the setup rules out,
	// by key, as RuledOut does its remedies (nil: none).
	Moot []RemedyID
	// Evidence are the lines the setup adds to the verdict's evidence (nil:
	// none): the apply worker's CPU per row and how much of it the setup
	// explains (EvApplyRowCost).
	Evidence []Evidence
}

// cause is the verdict's cause (own, "" none) combined with the setup's:
// the verdict's own (an apply error, a stopped subscription) first, what in
// the setup explains it next.
func (s Setup) cause(own string) string {
	switch {
	case len(s.Causes) == 0:
		return own
	case own != "":
		return own + "; in the setup: " + strings.Join(s.Causes, "; ")
	case len(s.Causes) == 1:
		return "cause: " + s.Causes[0]
	default:
		// Which weighs most needs the apply worker's work per table (not
		// measured yet): name them all.
		return "causes in the setup: " + strings.Join(s.Causes, "; ")
	}
}

// helps is the setup's fixes, then the verdict's own remedies (own), each
// general one replaced by its refinements, less those the setup rules out.
func (s Setup) helps(own []Advice) []Advice {
	return append(slices.Clip(s.Fixes), withoutKeys(refined(own), s.RuledOut...)...)
}

// not is the verdict's "does not help" lines (own) less those the setup
// rules out.
func (s Setup) not(own []Advice) []Advice {
	return withoutKeys(own, s.Moot...)
}

// without is s less the fixes of the given keys.
func (s *Setup) without(keys ...RemedyID) *Setup {
	c := *s
	c.Fixes = withoutKeys(s.Fixes, keys...)
	return &c
}
