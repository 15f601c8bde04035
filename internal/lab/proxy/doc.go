// Package proxy is a TCP relay that emulates a bandwidth-limited network link,
// so a lab can put a slow "WAN" between a publisher and a subscriber and watch
// logical replication lag build up.
//
// The limit applies to the link, not to each connection: all connections of a
// Proxy share one token bucket per direction, so N connections together get
// the configured rate downstream (upstream → client) and, separately, the same
// rate upstream (client → upstream). A rate of 0 means unlimited; the relay
// then uses large buffers and a read/write pipeline so that it costs as little
// throughput as possible.
//
//	p, err := proxy.Start(ctx, proxy.Options{
//		Listen:   "127.0.0.1:6432",
//		Upstream: "127.0.0.1:5432",
//		Rate:     8 * 1000 * 1000, // 8MB/s per direction
//	})
//	if err != nil { ... }
//	defer p.Close()
//
// Bench measures what the relay achieves on this machine (see docs/proxy.md):
// how close it keeps to a configured rate, and, unlimited, how much of a direct
// loopback connection's throughput it keeps.
package proxy
