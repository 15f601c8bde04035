package diagnose

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestResolveChecksTheServersAndPicksTheSlots(t *testing.T) {
	slot := func(name string, active bool) slotFact { return slotFact{Name: name, Active: active} }
	sub := func(name, slot string, enabled bool) subFact {
		return subFact{Name: name, Slot: slot, Enabled: enabled}
	}
	primary := facts{walLevel: "logical", slots: []slotFact{slot("a", true), slot("b", true)}}
	withSub := primary
	withSub.subscriber = true
	withSub.subs = []subFact{sub("sa", "a", true), sub("sb", "b", true)}
	tests := []struct {
		name               string
		f                  func(f facts) facts
		base               facts
		slot, subscription string
		want               []string
		err                error  // errors.Is, when set
		text               string // the error holds it, when set
	}{
		{name: "every slot of a primary", base: primary},
		{name: "one slot by name", base: primary, slot: "b", want: []string{"b"}},
		{name: "a subscription's slot", base: withSub, subscription: "sb", want: []string{"b"}},
		{name: "an unknown subscription", base: withSub, subscription: "sx", text: `no subscription named "sx"`},
		{name: "--subscription without a subscriber", base: primary, subscription: "sa", text: "needs --subscriber"},
		{name: "a slot the publisher lacks", base: primary, slot: "c", err: ErrNothingToDiagnose, text: "(it has: [a b])"},
		{name: "wal_level replica on a primary", base: primary, f: func(f facts) facts { f.walLevel = "replica"; return f }, text: "wal_level = replica"},
		{name: "no logical slot", base: primary, f: func(f facts) facts { f.slots = nil; return f }, err: ErrNothingToDiagnose},
		{name: "no subscription in the subscriber's database", base: withSub, f: func(f facts) facts { f.subs = nil; return f }, err: ErrNothingToDiagnose},
		{name: "an enabled subscription's slot dropped", base: withSub, f: func(f facts) facts { f.slots = f.slots[:1]; return f },
			err: ErrSlotMissing, text: `subscription sb uses slot "b"`},
		{name: "a disabled subscription's slot dropped is no error", base: withSub,
			f: func(f facts) facts { f.slots = f.slots[:1]; f.subs[1].Enabled = false; return f }},
		{name: "a subscriber in recovery", base: withSub, f: func(f facts) facts { f.subInRecovery = true; return f },
			err: ErrInRecovery, text: "point --subscriber at the primary"},
		{name: "a standby publisher with copies of the slots", base: withSub,
			f: func(f facts) facts {
				f.pubInRecovery, f.walLevel = true, "replica"
				f.slots = []slotFact{slot("a", false), slot("b", false)}
				return f
			}, err: ErrInRecovery, text: "logical slots (a, b) that no walsender streams from"},
		{name: "a standby publisher without slots (a base backup)", base: withSub,
			f: func(f facts) facts { f.pubInRecovery, f.slots = true, nil; return f }, err: ErrInRecovery, text: "with no logical slot"},
		{name: "a standby that publishes (16+): its slot is active", base: withSub,
			f: func(f facts) facts {
				f.pubInRecovery = true
				f.slots[1].Active = false
				f.subs[1].Enabled = false
				return f
			}},
		{name: "a standby whose active slot is not the one asked for", base: primary,
			f: func(f facts) facts { f.pubInRecovery = true; f.slots[1].Active = false; return f }, slot: "b", err: ErrInRecovery},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.base
			f.slots = slices.Clone(f.slots)
			f.subs = slices.Clone(f.subs)
			if tt.f != nil {
				f = tt.f(f)
			}
			got, err := f.resolve(tt.slot, tt.subscription)
			if tt.err == nil && tt.text == "" {
				if err != nil || !slices.Equal(got, tt.want) {
					t.Fatalf("resolve = %v, %v; want %v", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("resolve = %v, want an error", got)
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("error %q is not %q", err, tt.err)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("error %q does not hold %q", err, tt.text)
			}
		})
	}
}
