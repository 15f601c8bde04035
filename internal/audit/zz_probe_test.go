package audit

import (
	"context"
	"os"
	"testing"
)

func TestZZProbe(t *testing.T) {
	dsn := os.Getenv("PROBE_PUB")
	if dsn == "" {
		t.Skip()
	}
	rep, snaps, err := CheckServers(context.Background(), Options{Publisher: dsn, Subscriber: os.Getenv("PROBE_SUB")})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("unreadable: %v %v", snaps.Publisher.Unreadable, snaps.Subscriber.Unreadable)
	Text(os.Stdout, rep)
}
