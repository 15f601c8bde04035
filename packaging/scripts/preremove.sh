#!/bin/sh
# Stop the exporter before its binary goes (deb: remove; rpm: 0 left).
set -e
case "$1" in
remove | 0)
	if [ -d /run/systemd/system ]; then
		systemctl stop lagscope-exporter.service >/dev/null 2>&1 || true
		systemctl disable lagscope-exporter.service >/dev/null 2>&1 || true
	fi
	;;
esac
