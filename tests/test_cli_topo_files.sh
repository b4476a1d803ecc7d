#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bouncelab topo on other machines' topologies (XML files in
# tests/data/topo/, a directory as hwloc-gather-topology writes it), each read
# against hwloc's own tools on the same file: lstopo, hwloc-calc. The
# files: smt-interleaved.xml (lstopo -i "pack:1 core:2 pu:2(indexes=
# 2*2:1*2)": PU 0 and 2 on one core), hybrid.xml (two E-cores sharing an
# L2, two P-cores sharing another, kinds set with hwloc-annotate),
# knl-cache-mode.xml and knl-mscache-as-l3.xml (written by hand: MCDRAM
# as a MemCache, and as the L3 of subtype MemorySideCache that hwloc 1.x
# and HWLOC_KNL_MSCACHE_L3=1 make), numa-1based.xml and
# numa-bandwidth.xml (matrices added with hwloc-annotate).
#
#   test_cli_topo_files.sh BOUNCELAB
set -u
bouncelab=$1
data=$(dirname "$0")/data/topo
. "$(dirname "$0")/test_lib.sh"
checks=0

if ! "$bouncelab" topo | grep -q '^Topology: this system$'; then
	echo "skip: this build has no hwloc to read topology files"
	exit 77
fi
for tool in lstopo-no-graphics hwloc-calc; do
	command -v $tool >/dev/null || { echo "skip: no $tool (Debian's hwloc)"; exit 77; }
done

# topo_ok ARGS...: exit 0, stdout in $tmp/out.
topo_ok() {
	checks=$((checks + 1))
	"$bouncelab" topo "$@" >"$tmp/out" 2>"$tmp/err" ||
		{ fail "topo $* -> exit $?: $(cat "$tmp/err")"; return 1; }
}

# run_refused VAR=VALUE...: run under those variables exits 2 (a build
# that took the file for this system would run one small case, into $tmp).
run_refused() {
	usage_error "$1" env "${@:2}" "$bouncelab" run --quick --threads 1 \
		--filter '^has_pinned/nop$' --out "$tmp/refused.json"
}

# usage_error NEEDLE CMD...: exit 2, one stderr line holding NEEDLE.
usage_error() {
	local needle=$1 rc
	shift
	checks=$((checks + 1))
	timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q "^bouncelab: .*$needle" "$tmp/err" ||
		fail "$* -> exit $rc: $(cat "$tmp/err")"
}

# widest_class FILE A B: the class bouncelab gives CPUs A and B of FILE.
widest_class() {
	"$bouncelab" topo --topology "$1" --policy "cpus:$2,$3" |
		sed -n 's/^  widest class \([a-z_]*\).*/\1/p'
}

# 1. HWLOC_THISSYSTEM=1 does not make another machine's XML this system:
# its CPUs are the file's (not this machine's binding cut out of them),
# it is named as its file, and run refuses it naming the variable set.
xml=$data/smt-interleaved.xml
pus=$(hwloc-calc -i "$xml" --physical-output --intersect pu all | tr , '\n' | sort -n | paste -sd,)
HWLOC_THISSYSTEM=1 topo_ok --topology "$xml" &&
	{ grep -q "^Topology: XML file $xml (not this system" "$tmp/out" &&
	  grep -q "^Allowed CPUs: .* ($(echo "$pus" | tr , '\n' | wc -l))$" "$tmp/out" ||
	  fail "HWLOC_THISSYSTEM=1 --topology: $(head -2 "$tmp/out")"; }
HWLOC_THISSYSTEM=1 HWLOC_XMLFILE=$xml topo_ok &&
	{ grep -q "^Topology: XML file $xml (HWLOC_XMLFILE) (not this system" "$tmp/out" ||
	  fail "HWLOC_THISSYSTEM=1 HWLOC_XMLFILE: $(head -1 "$tmp/out")"; }
run_refused "not this system's: unset HWLOC_XMLFILE (" HWLOC_THISSYSTEM=1 HWLOC_XMLFILE="$xml"
# SMT siblings are the PUs of one Core, as hwloc-calc finds each PU's core.
for a in ${pus//,/ }; do
	for b in ${pus//,/ }; do
		[ "$a" -lt "$b" ] || continue
		checks=$((checks + 1))
		core_a=$(hwloc-calc -i "$xml" --physical-input --intersect core "pu:$a")
		core_b=$(hwloc-calc -i "$xml" --physical-input --intersect core "pu:$b")
		class=$(widest_class "$xml" "$a" "$b")
		if [ "$core_a" = "$core_b" ]; then
			[ "$class" = smt ] || fail "PUs $a and $b share core $core_a: class $class"
		else
			[ "$class" != smt ] || fail "PUs $a and $b are on cores $core_a and $core_b: class smt"
		fi
	done
done

# 2. MCDRAM in cache mode is a memory-side cache, not an L3: CPUs 0 and 4
# (different L2s, as hwloc-calc says; no CPU L3 in lstopo's tree) are one
# package apart, and the memory-side cache is named where the class is.
for xml in "$data/knl-cache-mode.xml" "$data/knl-mscache-as-l3.xml"; do
	checks=$((checks + 1))
	lstopo-no-graphics -i "$xml" --of console >"$tmp/lstopo"
	grep -Eq 'MemCache|L3\(MemorySideCache\)' "$tmp/lstopo" &&
		! grep -Eq '^ *L3 L#' "$tmp/lstopo" &&
		[ "$(hwloc-calc -i "$xml" --physical-input --intersect l2 pu:0)" != \
		  "$(hwloc-calc -i "$xml" --physical-input --intersect l2 pu:4)" ] ||
		fail "$xml is not the machine this test expects: $(cat "$tmp/lstopo")"
	topo_ok --topology "$xml" --policy cpus:0,4 || continue
	grep -q "^  widest class package, under one memory-side cache" "$tmp/out" ||
		fail "$xml CPUs 0 and 4: $(grep 'widest class' "$tmp/out")"
	grep -q "^  l3 " "$tmp/out" && fail "$xml: an l3 class: $(cat "$tmp/out")"
	grep -q "memory-side cache" <(sed -n '/^Machine/,/^$/p' "$tmp/out") ||
		fail "$xml: the tree names no memory-side cache"
	# every NUMA node lstopo shows, also the one behind the MemCache
	checks=$((checks + 1))
	[ "$(grep -o 'NUMANode L#[0-9]* (P#[0-9]*' "$tmp/lstopo" | sort)" = \
	  "$(grep -o 'NUMANode L#[0-9]* (P#[0-9]*' "$tmp/out" | sort)" ] ||
		fail "$xml: NUMA nodes differ from lstopo's: $(grep NUMANode "$tmp/out")"
done

# 3. CPU kinds: each kind's CPUs as hwloc-calc --cpukind selects them, and
# a pair across kinds labelled so, one within a kind not.
xml=$data/hybrid.xml
topo_ok --topology "$xml" &&
	for kind in 0 1; do
		checks=$((checks + 1))
		cpus=$(hwloc-calc -i "$xml" --cpukind $kind --physical-output --intersect pu all)
		type=$(lstopo-no-graphics -i "$xml" --cpukinds |
		       sed -n "/^CPU kind #$kind /,/^CPU kind/ s/^  CoreType = //p")
		first=${cpus%%,*} last=${cpus##*,}
		grep -q "^  kind $kind: CPUs $first-$last: efficiency $kind, CoreType=$type$" "$tmp/out" ||
			fail "kind $kind is CPUs $cpus, $type to hwloc: $(grep '^  kind' "$tmp/out")"
	done
e_cpus=$(hwloc-calc -i "$xml" --cpukind CoreType=IntelAtom --physical-output --intersect pu all)
p_cpus=$(hwloc-calc -i "$xml" --cpukind CoreType=IntelCore --physical-output --intersect pu all)
topo_ok --topology "$xml" --policy "cpus:${e_cpus%%,*},${p_cpus%%,*}" &&
	{ grep -q "^  widest class .*, spans CPU kinds" "$tmp/out" ||
	  fail "an E-core and a P-core: $(grep 'widest class' "$tmp/out")"; }
topo_ok --topology "$xml" --policy "cpus:$e_cpus" &&
	{ ! grep -q "spans CPU kinds" "$tmp/out" ||
	  fail "two E-cores: $(grep 'widest class' "$tmp/out")"; }

# 4. A matrix's local value is its own diagonal, and a bandwidth matrix is
# named as one: lstopo --distances says which kind each is.
xml=$data/numa-1based.xml
checks=$((checks + 1))
lstopo-no-graphics -i "$xml" --distances | grep -q '^Relative latency matrix' ||
	fail "$xml: lstopo reads no latency matrix"
local_value=$(lstopo-no-graphics -i "$xml" --distances | awk '$1 == "0" { print $2; exit }')
topo_ok --topology "$xml" &&
	{ grep -q "^NUMA distances (relative latency, $local_value = local):" "$tmp/out" ||
	  fail "$xml: $(grep '^NUMA distances' "$tmp/out"), lstopo's diagonal $local_value"; }
xml=$data/numa-bandwidth.xml
checks=$((checks + 1))
lstopo-no-graphics -i "$xml" --distances | grep -q '^Relative bandwidth matrix' ||
	fail "$xml: lstopo reads no bandwidth matrix"
lstopo-no-graphics -i "$xml" --distances | awk 'NR > 2 { $1 = ""; print }' >"$tmp/lstopo"
topo_ok --topology "$xml" &&
	{ grep -q "^NUMA distances: none given" "$tmp/out" &&
	  grep -q "^NUMA bandwidth (relative bandwidth, higher is nearer" "$tmp/out" ||
	  fail "$xml: $(grep '^NUMA' "$tmp/out")"
	  sed -n '/^NUMA bandwidth/,$ p' "$tmp/out" | awk 'NR > 2 && NF { $1 = ""; print }' |
		diff - "$tmp/lstopo" >/dev/null || fail "$xml: bandwidths differ from lstopo's"; }

# 5. A directory as hwloc-gather-topology writes it (running it copies
# /sys: most of a minute on the 2-vCPU guest), made here: the sysfs CPU
# topology of 2 packages x 2 cores x 2 PUs, siblings numbered i and i + 4
# as Linux numbers them, reached through relative links as in sysfs.
# As --topology and as HWLOC_FSROOT: what hwloc-calc reads there.
# gather_like DIR: writes that machine under DIR.
gather_like() {
	local cpu pack core first d
	mkdir -p "$1/proc" "$1/sys/bus/cpu/devices"
	for cpu in 0 1 2 3 4 5 6 7; do
		pack=$((cpu / 2 % 2)) core=$((cpu % 2)) first=$((cpu % 4))
		d=$1/sys/devices/system/cpu/cpu$cpu/topology
		mkdir -p "$d"
		echo $pack >"$d/physical_package_id"
		echo $core >"$d/core_id"
		printf '%02x\n' $(((1 << first) | (1 << (first + 4)))) >"$d/thread_siblings"
		printf '%02x\n' $(((3 << (pack * 2)) | (3 << (pack * 2 + 4)))) >"$d/core_siblings"
		cp "$d/thread_siblings" "$d/core_cpus"
		cp "$d/core_siblings" "$d/package_cpus"
		ln -s "../../../devices/system/cpu/cpu$cpu" "$1/sys/bus/cpu/devices/cpu$cpu"
	done
	echo 0-7 >"$1/sys/devices/system/cpu/online"
	echo 0-7 >"$1/sys/devices/system/cpu/possible"
}
dir=$tmp/gathered
gather_like "$dir"
nr=$(hwloc-calc -i "$dir" --number-of pu all)
topo_ok --topology "$dir" &&
	{ grep -q "^Topology: hwloc-gather-topology directory $dir (not this system" "$tmp/out" &&
	  grep -q "^Allowed CPUs: .* ($nr)$" "$tmp/out" ||
	  fail "--topology DIR: $(head -2 "$tmp/out"), hwloc-calc counts $nr PUs"; }
# the caches lstopo finds there (none: sysfs's cache/ is not copied here),
# not this machine's CPUID
checks=$((checks + 1))
[ "$(lstopo-no-graphics -i "$dir" --of console | grep -c 'L[1-5][di]* L#')" = \
  "$(sed -n '/^Machine/,/^$/p' "$tmp/out" | grep -c 'L[1-5][di]* L#')" ] ||
	fail "gathered caches differ from lstopo's: $(cat "$tmp/out")"
for pair in "0 4" "0 1" "1 5" "0 2" "3 7"; do
	set -- $pair
	checks=$((checks + 1))
	same=$([ "$(hwloc-calc -i "$dir" --physical-input --intersect core "pu:$1")" = \
		 "$(hwloc-calc -i "$dir" --physical-input --intersect core "pu:$2")" ] && echo yes)
	class=$(widest_class "$dir" "$1" "$2")
	[ "$same" = yes ] && want=smt || want=other
	[ "$class" = smt ] && got=smt || got=other
	[ "$want" = "$got" ] ||
		fail "gathered CPUs $1 and $2: class $class, one core to hwloc-calc: ${same:-no}"
done
HWLOC_FSROOT=$dir topo_ok &&
	{ grep -q "^Topology: hwloc-gather-topology directory $dir (HWLOC_FSROOT)" "$tmp/out" ||
	  fail "HWLOC_FSROOT: $(head -1 "$tmp/out")"; }
run_refused "not this system's: unset HWLOC_FSROOT (" HWLOC_FSROOT="$dir"
# its files are checked before hwloc opens them: no link out, no FIFO
ln -s /etc/hostname "$dir/sys/escape"
usage_error "sys/escape: a link to /etc/hostname, outside the directory" \
	"$bouncelab" topo --topology "$dir"
rm "$dir/sys/escape"
mkfifo "$dir/proc/fifo"
usage_error "proc/fifo: a FIFO: expected the regular files" \
	"$bouncelab" topo --topology "$dir"
rm "$dir/proc/fifo"
# no CPU topology: one line of ours, not hwloc's fallback to this machine
rm -r "$dir"/sys/devices/system/cpu/cpu*/topology
usage_error "hwloc found no CPU topology there" "$bouncelab" topo --topology "$dir"
mkdir -p "$tmp/nosys/proc"
usage_error "a directory without sys/devices/system/cpu/" "$bouncelab" topo --topology "$tmp/nosys"

echo "$((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
