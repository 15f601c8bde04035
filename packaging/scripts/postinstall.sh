#!/bin/sh
# lagscope's package: the exporter's own system user, and its config files
# readable by it alone. The service is not started: edit
# /etc/lagscope/exporter.yml first, then 'systemctl enable --now lagscope-exporter'.
set -e
case "$1" in
abort-*) exit 0 ;;
esac
if ! getent group lagscope >/dev/null; then
	groupadd --system lagscope
fi
if ! getent passwd lagscope >/dev/null; then
	useradd --system --gid lagscope --home-dir /nonexistent --no-create-home \
		--shell /usr/sbin/nologin --comment "lagscope exporter" lagscope
fi
for f in /etc/lagscope/exporter.yml /etc/lagscope/exporter.env; do
	if [ -e "$f" ]; then
		chown root:lagscope "$f"
		chmod 0640 "$f"
	fi
done
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload >/dev/null 2>&1 || true
fi
