#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The bash completion, driven as bash drives it (COMP_WORDS, COMP_CWORD,
# the function `complete -p` names), against two oracles it is not made
# from: the program's --help texts, and the getopt_long() tables in
# cli/cmd_*.c, which decide what the program takes.
#
# - the first word completes to every command --help lists, and
#   --help/--version;
# - "bouncelab CMD -<TAB>" offers every option of CMD's --help (option
#   lines and usage lines) and every long option its table has, and no
#   option the table (or gup's getopt string) does not take;
# - after a long option the table says takes a value, no option is
#   offered (the value comes next); after one that takes none, options
#   are; after -o/--output/--out/--latency-out, file names.
#
#   test_completion.sh BOUNCELAB COMPLETION SOURCE_DIR
set -u
bouncelab=$1
completion=$2
source_dir=$3
. "$(dirname "$0")/test_lib.sh"

# shellcheck disable=SC1090
. "$completion" || fail "sourcing $completion failed"
spec=$(complete -p bouncelab 2>/dev/null)
[[ $spec == *"-F "* ]] || { fail "complete -p names no function for bouncelab: '$spec'"; exit 1; }
func=${spec#*-F }
func=${func%% *}

# comp WORD...: what completing the last word offers, one per line, sorted
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	"$func" bouncelab "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort -u
}

help_commands=$("$bouncelab" --help | awk '/^Commands:/ { on = 1; next } on && /^  / { print $1; next } on { exit }')
[ "$(wc -l <<<"$help_commands")" -ge 8 ] || fail "bouncelab --help lists too few commands: $help_commands"
first=$(comp bouncelab '')
for c in $help_commands --help --version; do
	grep -qxF -- "$c" <<<"$first" || fail "the first word does not complete to '$c': $(echo $first)"
done
[ "$(comp bouncelab re)" = report ] || fail "'re' completes to '$(comp bouncelab re)', expected report"

for c in $help_commands; do
	src="$source_dir/cli/cmd_$c.c"
	[ -f "$src" ] || { fail "no $src for command '$c'"; continue; }
	offered=$(comp bouncelab "$c" -)
	# --help's options: the words that start its option lines and usage lines
	from_help=$("$bouncelab" "$c" --help |
		awk '/^usage:/ || /^       bouncelab / || /^  -/' |
		grep -oE '(^|[ [,|])--?[A-Za-z0-9][A-Za-z0-9-]*' | sed 's/^[ [,|]//' | sort -u)
	# the table: { "name", required_argument, ... }
	table=$(grep -oE '\{ "[a-z][a-z-]*", (no|required|optional)_argument' "$src")
	long=$(sed -E 's/\{ "([^"]*)".*/--\1/' <<<"$table")
	shorts=$(grep -oE 'getopt_long\(argc, argv, "[^"]*"' "$src" | sed -E 's/.*"(.*)"/\1/' | tr -d '+:')
	for o in $from_help $long; do
		grep -qxF -- "$o" <<<"$offered" || fail "'$c -<TAB>' does not offer $o"
	done
	for o in $offered; do
		case $o in
		--*) grep -qxF -- "$o" <<<"$long" || fail "'$c -<TAB>' offers $o, which $src's table lacks" ;;
		-?) [[ $shorts == *"${o#-}"* ]] || fail "'$c -<TAB>' offers $o, which $src's getopt string lacks" ;;
		*) fail "'$c -<TAB>' offers '$o', not an option" ;;
		esac
	done
	while read -r name kind; do
		after=$(comp bouncelab "$c" "--$name" -)
		if [ "$kind" = required ]; then
			[ -z "$after" ] || fail "'$c --$name -<TAB>' offers options, but --$name takes a value"
		else
			[ -n "$after" ] || fail "'$c --$name -<TAB>' offers nothing, but --$name takes no value"
		fi
	done < <(sed -E 's/\{ "([^"]*)", ([a-z]*)_argument/\1 \2/' <<<"$table")
done

# file names after an option whose value is a path
mkdir -p "$tmp/files" && touch "$tmp/files/results-a.json"
cd "$tmp/files" || exit 1
for words in "report -o" "report --output" "run --out" "topo --latency-out" "report --latency"; do
	# shellcheck disable=SC2086
	[ "$(comp bouncelab $words res)" = results-a.json ] ||
		fail "'$words res<TAB>' does not complete the file name: '$(comp bouncelab $words res)'"
done
[ "$(comp bouncelab report res)" = results-a.json ] || fail "a results file does not complete after report"

[ $failures -eq 0 ] || exit 1
echo "ok: bash completion of $(wc -w <<<"$help_commands") commands"
