package model

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// streaming = parallel is advised only where it exists on both sides (16+:
// the publisher sends protocol version 4) and the slot spilled large
// transactions; a 15 publisher or subscriber rules it out.
func TestStreamingParallelNeedsBothSides16(t *testing.T) {
	out := ruledOut[KeyStreamingParallel]
	if out == nil {
		t.Fatal("no rule for streaming = parallel")
	}
	for _, c := range []struct {
		pub, sub int
		spills   bool
		ruled    bool
	}{
		{16, 16, true, false},
		{18, 16, true, false},
		{15, 16, true, true},
		{16, 15, true, true},
		{16, 16, false, true},
	} {
		if got := out(pathSetup{pubMajor: c.pub, subMajor: c.sub, spills: c.spills}); got != c.ruled {
			t.Errorf("publisher %d, subscriber %d, spills %v: ruled out %v, want %v", c.pub, c.sub, c.spills, got, c.ruled)
		}
	}
}

// A large transaction is advised the streaming its versions have: parallel
// where both sides are 16+, on where one is 14 or 15 (on used to be ruled
// out with parallel on a 15 server, dropping the advice), neither where the
// subscription streams that way already; without the setup, the general
// "parallel (16+) or on".
func TestALargeTransactionIsAdvisedTheStreamingItsVersionsHave(t *testing.T) {
	rec, err := recordings.Read("../classify/testdata", "big-txn-decoding-pg15-diag")
	if err != nil {
		t.Fatal(err)
	}
	v := Judge(Inputs(rec, nil)[0])
	if v.Name != LargeTransaction {
		t.Fatalf("verdict %s, want %s", v.Name, LargeTransaction)
	}
	streaming := func(helps []Advice) []RemedyID {
		var out []RemedyID
		for _, h := range helps {
			switch h.Key {
			case KeyStreamingParallel, KeyStreamingOn, KeyStreamingParallelOrOn:
				out = append(out, h.Key)
			}
		}
		return out
	}
	if got := streaming(Explain(v, nil).Helps); !slices.Equal(got, []RemedyID{KeyStreamingParallelOrOn}) {
		t.Errorf("without a setup: %q, want the general streaming advice", got)
	}
	for _, c := range []struct {
		name     string
		pub, sub int
		set      string
		want     []RemedyID
	}{
		{"15 on both sides, streaming off: on", 15, 15, "off", []RemedyID{KeyStreamingOn}},
		{"a 14 subscriber of a 16 publisher: on", 16, 14, "off", []RemedyID{KeyStreamingOn}},
		{"16 on both sides, streaming off: parallel", 16, 16, "off", []RemedyID{KeyStreamingParallel}},
		{"16 on both sides, streaming on: parallel", 16, 18, "on", []RemedyID{KeyStreamingParallel}},
		{"15, streaming on already: neither", 15, 15, "on", nil},
		{"16, streaming parallel already: neither", 16, 16, "parallel", nil},
		{"13: neither", 13, 13, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := pathSetup{pubMajor: c.pub, subMajor: c.sub, pubRead: true, spills: true, sub: &audit.Subscription{Name: "lab_sub", Streaming: c.set}}
			helps := Explain(v, &Setup{RuledOut: keysWhere(ruledOut, s)}).Helps
			if got := streaming(helps); !slices.Equal(got, c.want) {
				t.Errorf("streaming advice %q, want %q (all: %q)", got, c.want, Texts(helps))
			}
		})
	}
}

// The setup names the path's subscription as its catalog has it (for the
// option remedies' statements) only when it read that subscription.
func TestTheSetupNamesTheSubscriptionItRead(t *testing.T) {
	rec, err := recordings.Read("../classify/testdata", "apply-bound-pg16-diag")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../audit/testdata/misconfigured-pg16.json")
	if err != nil {
		t.Fatal(err)
	}
	in := Inputs(rec, nil)[0]
	p := PathFacts{Slot: in.Slot, Subscription: in.Subscription, Verdict: Judge(in)}
	if s := FromSetup(p, SetupRead{PubMajor: rec.Server(sample.PublisherNode).Major, SubMajor: rec.Server(sample.SubscriberNode).Major}).Setup; s != nil && s.Subscription != "" {
		t.Errorf("no setup read, yet it names subscription %q", s.Subscription)
	}
	for _, c := range []struct{ name, sub, want string }{
		{"the path's subscription is in the setup", "lab_sub", "lab_sub"},
		{"a capitalised name is kept as the catalog has it", "Orders", "Orders"},
		{"a path whose subscription the setup lacks names none", "not_there", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var snaps audit.Snapshots
			if err := json.Unmarshal(b, &snaps); err != nil {
				t.Fatal(err)
			}
			for i := range snaps.Subscriber.Subscriptions {
				if snaps.Subscriber.Subscriptions[i].Name == "lab_sub" && c.sub != "not_there" {
					snaps.Subscriber.Subscriptions[i].Name = c.sub
				}
			}
			q := p
			q.Subscription = c.sub
			s := FromSetup(q, SetupRead{Snaps: &snaps, Results: audit.Run(snaps, audit.All)}).Setup
			if s == nil || s.Subscription != c.want {
				t.Errorf("setup %+v, want subscription %q", s, c.want)
			}
		})
	}
}
