#!/bin/sh
# remove keeps the configuration and the lagscope user (files may still be
# owned by it); purge (deb) removes both.
set -e
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload >/dev/null 2>&1 || true
fi
if [ "$1" = purge ]; then
	rm -rf /etc/lagscope
	if getent passwd lagscope >/dev/null; then
		userdel lagscope || true
	fi
	if getent group lagscope >/dev/null; then
		groupdel lagscope 2>/dev/null || true
	fi
fi
