#!/bin/sh
# Runs the README's 3-node cluster on this machine: nodes n1, n2, n3 on
# 127.0.0.1, client ports BASE+1..BASE+3 (7001-7003) and Raft ports
# BASE+101..BASE+103 (7101-7103), each with a data dir and a log under DIR.
#
#   deploy/cluster.sh start      # start the three nodes, wait until each answers PING
#   deploy/cluster.sh status     # PING each node
#   deploy/cluster.sh stop       # SIGTERM each node, wait for it to exit
#
# Environment: LOCKKV (the binary; default: lockkv on PATH), DIR (default
# ./lockkv-cluster), BASE (default 7000), REQUIREPASS (default none: the
# Raft ports are then unauthenticated, fine on loopback only), and
# LOCKKV_FLAGS (more flags for every node, e.g. "--log-format json").
set -eu

LOCKKV=${LOCKKV:-lockkv}
DIR=${DIR:-./lockkv-cluster}
BASE=${BASE:-7000}
REQUIREPASS=${REQUIREPASS:-}
LOCKKV_FLAGS=${LOCKKV_FLAGS:-}

client() { echo "127.0.0.1:$((BASE + $1))"; }
raft() { echo "127.0.0.1:$((BASE + 100 + $1))"; }
peers="n1=$(raft 1)=$(client 1),n2=$(raft 2)=$(client 2),n3=$(raft 3)=$(client 3)"

ping_node() {
	REDISCLI_AUTH=$REQUIREPASS "$LOCKKV" ping --addr "$(client "$1")" --timeout 1s >/dev/null 2>&1
}

start() {
	mkdir -p "$DIR"
	for i in 1 2 3; do
		if [ -f "$DIR/n$i.pid" ] && kill -0 "$(cat "$DIR/n$i.pid")" 2>/dev/null; then
			echo "n$i is already running (pid $(cat "$DIR/n$i.pid"))"
			continue
		fi
		set -- --addr "$(client $i)" --node-id "n$i" --raft-addr "$(raft $i)" \
			--data-dir "$DIR/d$i" --bootstrap --peers "$peers"
		[ -n "$REQUIREPASS" ] && set -- "$@" --requirepass "$REQUIREPASS"
		# shellcheck disable=SC2086 # LOCKKV_FLAGS is a list of flags
		nohup "$LOCKKV" "$@" $LOCKKV_FLAGS >>"$DIR/n$i.log" 2>&1 </dev/null &
		echo $! >"$DIR/n$i.pid"
	done
	for i in 1 2 3; do
		tries=0
		until ping_node $i; do
			tries=$((tries + 1))
			if [ $tries -ge 100 ] || ! kill -0 "$(cat "$DIR/n$i.pid")" 2>/dev/null; then
				echo "n$i did not start; its log, $DIR/n$i.log, ends with:" >&2
				tail -n 20 "$DIR/n$i.log" >&2
				exit 1
			fi
			sleep 0.1
		done
		echo "n$i serves on $(client $i) (Raft $(raft $i), pid $(cat "$DIR/n$i.pid"))"
	done
}

status() {
	rc=0
	for i in 1 2 3; do
		if ping_node $i; then
			echo "n$i: up on $(client $i)"
		else
			echo "n$i: down"
			rc=1
		fi
	done
	return $rc
}

stop() {
	for i in 1 2 3; do
		[ -f "$DIR/n$i.pid" ] || continue
		pid=$(cat "$DIR/n$i.pid")
		kill "$pid" 2>/dev/null || true
		tries=0
		while kill -0 "$pid" 2>/dev/null && [ $tries -lt 100 ]; do
			tries=$((tries + 1))
			sleep 0.1
		done
		rm -f "$DIR/n$i.pid"
		echo "n$i stopped"
	done
}

case "${1:-}" in
start) start ;;
status) status ;;
stop) stop ;;
*)
	echo "usage: $0 start|status|stop" >&2
	exit 2
	;;
esac
