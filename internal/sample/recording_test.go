package sample

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// TestRecordingVersion1Loads checks that a recording saved before version 2
// (testdata/recording-v1.json, the first ticks of a lab run on 16) still
// loads, with the fields version 2 added left empty.
func TestRecordingVersion1Loads(t *testing.T) {
	b, err := os.ReadFile("testdata/recording-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec Recording
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("a version 1 recording does not load: %v", err)
	}
	pub, sb := rec.Ticks[0].Read(PublisherNode), rec.Ticks[0].Read(SubscriberNode)
	if rec.Version != 1 || len(rec.Ticks) != 2 || len(pub.Senders) != 1 || len(sb.Subs) != 1 {
		t.Fatalf("loaded version %d with %d ticks, want version 1 with 2 ticks, a sender and a subscription", rec.Version, len(rec.Ticks))
	}
	s, sub := pub.Senders[0], sb.Subs[0]
	if s.Sent == 0 || s.WriteLagS != nil || s.ReplyAt != nil || sub.LastMsgSendAt != nil || sb.Blockers != nil {
		t.Errorf("sender %+v, subscription %+v: want the old fields set and the new ones nil", s, sub)
	}
}

// TestRecordingVersion2RoundTrips checks the names and round trip of the
// fields version 2 added, in a node's read, and that they are left out
// when empty.
func TestRecordingVersion2RoundTrips(t *testing.T) {
	lag := 1.5
	at := time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.UTC)
	tk := Read{
		Senders:  []Sender{{PID: 1, WriteLagS: &lag, FlushLagS: &lag, ReplayLagS: &lag, ReplyAt: &at}},
		Subs:     []Sub{{Name: "s", LastMsgSendAt: &at, LastMsgReceiptAt: &at, LatestEndAt: &at}},
		Blockers: []Blocker{{WaiterPID: 2, WaitEvent: "relation", Session: Session{PID: 3, AppName: "holder"}, XactAgeS: 4.5}},
	}
	b, err := json.Marshal(tk)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"senders", "subs", "blockers"} {
		if _, ok := m[k]; !ok {
			t.Errorf("%s missing from %s", k, b)
		}
	}
	sender := m["senders"].([]any)[0].(map[string]any)
	for _, k := range []string{"write_lag_s", "flush_lag_s", "replay_lag_s", "reply_time"} {
		if _, ok := sender[k]; !ok {
			t.Errorf("sender field %s missing from %s", k, b)
		}
	}
	sub := m["subs"].([]any)[0].(map[string]any)
	for _, k := range []string{"last_msg_send_time", "last_msg_receipt_time", "latest_end_time"} {
		if _, ok := sub[k]; !ok {
			t.Errorf("subscription field %s missing from %s", k, b)
		}
	}
	var back Read
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if *back.Senders[0].FlushLagS != lag || !back.Subs[0].LatestEndAt.Equal(at) || back.Blockers[0].AppName != "holder" {
		t.Errorf("round trip lost values: %s", b)
	}
	empty, _ := json.Marshal(Read{Senders: []Sender{{PID: 1}}, Subs: []Sub{{Name: "s"}}})
	for _, k := range []string{"write_lag_s", "reply_time", "last_msg_send_time", "blockers"} {
		if strings.Contains(string(empty), `"`+k+`"`) {
			t.Errorf("empty %s written: %s", k, empty)
		}
	}
}
