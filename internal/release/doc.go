// Package release holds the test of lagscope's release artifacts: it runs
// 'make dist' (scripts/dist.sh) once for this machine's platform and checks
// what an operator would do with each artifact - sha256sum -c, dpkg -i and
// dpkg -r/-P of the .deb, the image's binary from its unpacked layers, and
// helm lint/template of the chart against docs/prometheus/alerts.yml. The
// artifacts themselves are written by packaging/dist (a module of its own).
package release
