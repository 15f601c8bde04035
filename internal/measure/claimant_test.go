package measure

import (
	"slices"
	"testing"

	"github.com/lagscope/lagscope/internal/sample"
)

// When several subscriptions name one slot, the one in use is the path's,
// not the last by name, and the others are its rivals.
func TestTheActiveSubscriptionOfASlotIsChosen(t *testing.T) {
	live := sample.Sub{Name: "b_live", Slot: "s", Enabled: true, WorkerPID: 7}
	cases := []struct {
		name       string
		subs       []sample.Sub
		want       string
		wantRivals []string
	}{
		{"one subscription names the slot", []sample.Sub{live, {Name: "other", Slot: "t", Enabled: true, WorkerPID: 8}}, "b_live", nil},
		{"a disabled decoy sorting after it does not win", []sample.Sub{live, {Name: "z_decoy", Slot: "s"}}, "b_live", []string{"z_decoy"}},
		{"a disabled decoy sorting before it does not win", []sample.Sub{{Name: "a_decoy", Slot: "s"}, live}, "b_live", []string{"a_decoy"}},
		{"an enabled one without a worker wins over a disabled one", []sample.Sub{{Name: "a", Slot: "s"}, {Name: "b", Slot: "s", Enabled: true}}, "b", []string{"a"}},
		{"none enabled: the first by name", []sample.Sub{{Name: "a", Slot: "s"}, {Name: "b", Slot: "s"}}, "a", []string{"b"}},
		{"none names the slot", []sample.Sub{{Name: "a", Slot: "t"}}, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, rivals := claimant(c.subs, "s", nil)
			got := ""
			if s != nil {
				got = s.Name
			}
			if got != c.want || !slices.Equal(rivals, c.wantRivals) {
				t.Errorf("chose %q with rivals %q, want %q with %q", got, rivals, c.want, c.wantRivals)
			}
		})
	}
}
