package model

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/sample"
)

// TestLargeTransactionPhases checks what the recorded large transactions
// say beyond the verdict's name: the phase, the limit, the session.
func TestLargeTransactionPhases(t *testing.T) {
	cases := []struct {
		glob, phase string
		limit       StageName
	}{
		{"../classify/testdata/big-txn-pg*.json", TxnSending, StageApply},
		{"../classify/testdata/big-txn-decoding-*.json", TxnDecoding, StageWalsender},
		{"../classify/testdata/open-txn-*.json", TxnOpen, ""},
	}
	for _, c := range cases {
		files, _ := filepath.Glob(c.glob)
		if len(files) == 0 {
			t.Fatalf("no recordings %s", c.glob)
		}
		for _, f := range files {
			v := Classify(Inputs(load(t, f), nil)[0])
			if v.Txn == nil || v.Txn.Phase != c.phase || v.Limit != c.limit {
				t.Errorf("%s: txn %+v limit %q, want phase %s limit %q", f, v.Txn, v.Limit, c.phase, c.limit)
				continue
			}
			if v.Txn.HeldBytes < TxnHeldWAL {
				t.Errorf("%s: held %d bytes, want at least %d", f, v.Txn.HeldBytes, TxnHeldWAL)
			}
			if c.phase == TxnOpen && (v.Txn.Xact == nil || v.Txn.Xact.AppName != "lab-open-txn") {
				t.Errorf("%s: open transaction %+v, want the lab's session", f, v.Txn.Xact)
			}
			if !strings.Contains(strings.Join(Texts(v.Helps), "\n"), "streaming = parallel") {
				t.Errorf("%s: helps %q, want streaming named", f, v.Helps)
			}
		}
	}
}

// TestLargeTransactionNeedsHeldWAL: the same recording with restart_lsn
// kept up with confirmed_flush_lsn (a slot that can release its WAL) is no
// large transaction; nor is an open transaction younger than the window.
func TestLargeTransactionNeedsHeldWAL(t *testing.T) {
	for _, f := range []string{"../classify/testdata/big-txn-pg16-diag.json", "../classify/testdata/open-txn-pg16-diag.json"} {
		rec := modify(load(t, f), func(_ int, tk *sample.Tick) {
			tk.Read(sample.PublisherNode).Slots[0].RestartLSN = tk.Read(sample.PublisherNode).Slots[0].ConfirmedFlush
		})
		if v := Classify(Inputs(rec, nil)[0]); v.Txn != nil || v.Name == LargeTransaction {
			t.Errorf("%s with restart_lsn at confirmed_flush_lsn: %s %+v, want no large transaction", f, v.Name, v.Txn)
		}
	}
	rec := load(t, "../classify/testdata/open-txn-pg16-diag.json")
	for i := range rec.Ticks {
		for j := range rec.Ticks[i].Read(sample.PublisherNode).Xacts {
			rec.Ticks[i].Read(sample.PublisherNode).Xacts[j].AgeS = 1
		}
	}
	if v := Classify(Inputs(rec, nil)[0]); v.Name == LargeTransaction {
		t.Errorf("an open transaction of 1 s: %s, want the stage model's verdict", v.Name)
	}
}

// TestKeepalivesMoveConfirmedWhileDecoding: 18.4's big-txn-decoding whose
// decoding ended at the window's last tick, where confirmed_flush_lsn
// jumped 1.2 GB with the walsender's keepalive and no transaction was sent,
// is still decoding, and says what moved confirmed; the same window with a
// transaction counted as sent (total_txns) is not.
func TestKeepalivesMoveConfirmedWhileDecoding(t *testing.T) {
	f := "../classify/testdata/big-txn-decoding-pg18-diag-ended.json"
	v := Classify(Inputs(load(t, f), nil)[0])
	if v.Txn == nil || v.Txn.Phase != TxnDecoding || v.Txn.KeepaliveBytes < 1e9 {
		t.Fatalf("%s: %s %+v, want decoding with over 1 GB confirmed by keepalives", f, v.Name, v.Txn)
	}
	if ev := strings.Join(EvidenceTexts(v.Evidence), "\n"); !strings.Contains(ev, "keepalives carried (1.2 GB further") {
		t.Errorf("evidence %q, want the keepalives' confirmation named", ev)
	}
	rec := load(t, f)
	last := len(rec.Ticks) - 1
	rec = modify(rec, func(i int, tk *sample.Tick) {
		if i == last {
			tk.Read(sample.PublisherNode).Slots[0].TotalTxns++
		}
	})
	if v := Classify(Inputs(rec, nil)[0]); v.Txn != nil && v.Txn.Phase == TxnDecoding {
		t.Errorf("a transaction sent in the window: %+v, want no decoding phase", v.Txn)
	}
	for _, g := range []string{"big-txn-decoding-pg15-diag.json", "big-txn-decoding-pg16-diag.json", "big-txn-decoding-pg18-diag.json"} {
		if v := Classify(Inputs(load(t, "../classify/testdata/"+g), nil)[0]); v.Txn == nil || v.Txn.KeepaliveBytes != 0 {
			t.Errorf("%s: %+v, want nothing confirmed", g, v.Txn)
		}
	}
}
