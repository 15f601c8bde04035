package model

import "math"

// confirmationLag names a consumer that has received everything but
// confirms late (a lazy confirmer: it commits its position on a timer):
// the walsender waits for new WAL, the consumer reported writing up to
// sent_lsn, and its flush position (which the slot's confirmed_flush_lsn
// follows) trails by more than a caught-up path may hold. With a subscriber
// observed, its apply worker must not be busy (a busy one is applying a
// large transaction, which the stage model names).
func confirmationLag(in Input, ws, ap Stage) (Verdict, bool) {
	s, r := in.Summary, in.Reported
	if r == nil || !ws.Known() || ws.Starved < MostProbes || s.Lag.NotYetSent > CaughtUpLag ||
		r.WriteBehind > CaughtUpLag || r.FlushBehind <= CaughtUpLag || s.Lag.Total <= CaughtUpLag {
		return Verdict{}, false
	}
	if in.HasSubscriber && ap.Known() && ap.Utilisation >= MostlyBusy {
		return Verdict{}, false
	}
	conf := confidence(margin{"walsender waiting for WAL over MostProbes", ws.Starved - MostProbes}, margin{"flush position behind over CaughtUpLag (of 4x)", float64(r.FlushBehind-CaughtUpLag) / float64(4*CaughtUpLag)}, margin{"write position behind under CaughtUpLag", float64(CaughtUpLag-r.WriteBehind) / float64(CaughtUpLag)})
	v := newVerdict(ConfirmationLag, conf)
	v.d.basis = basisConfirm
	if !in.HasSubscriber || !ap.Known() {
		v.Confidence = math.Min(v.Confidence, capConsumerUnseen)
		v.Caveats = append(v.Caveats, "the consumer is not observed: a consumer that buffers what it received and processes it slowly looks the same; its own progress figures would settle it")
	}
	return v, true
}

// publisherOnlyLink caps a link verdict made without observing the
// consumer (network-or-consumer): a consumer slower than the walsender (its
// CPU, disk or downstream) fills the socket exactly like a slow network,
// and only the consumer's side can tell them apart.
func publisherOnlyLink(v Verdict) Verdict {
	v.Confidence = math.Min(v.Confidence, capConsumerUnseen)
	v.Caveats = append(v.Caveats, "the consumer is not observed: to settle it, look at the consumer's CPU and its read rate, or run diagnose with --subscriber when the consumer is a subscription")
	return v
}
