#!/bin/sh
# lua-source.sh DIR: unpack into DIR/lua5.4 the C sources of Debian's own
# source package lua5.4 (the one liblua5.4-dev is built from), fetched
# with apt-get source through a private apt configuration under DIR: its
# own sources list (a deb-src line for each Debian mirror and suite the
# system's apt sources name), lists and cache. The system's apt lists,
# cache and sources are read, never written.
set -eu
dir=$1
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
apt=$dir/apt
rm -rf "$apt" "$dir/lua5.4" "$dir/src"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/sources.list.d" "$dir/src"

# deb-src lines for the mirrors and suites of the system's own sources:
# one-line .list files and deb822 .sources files, deb entries only.
{
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*deb[[:space:]]\{1,\}/deb-src /p' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'function flush() {
			if (deb && uris != "" && suites != "") {
				print "Types: deb-src"; print "URIs: " uris; print "Suites: " suites
				print "Components: " comps
				if (signed != "") print "Signed-By: " signed
				print ""
			}
			deb = 0; uris = suites = comps = signed = ""
		}
		/^[[:space:]]*$/ { flush(); next }
		/^#/ { next }
		{ key = tolower($1); sub(/^[^:]*:[[:space:]]*/, "") }
		key == "types:" { deb = ($0 ~ /(^|[[:space:]])deb([[:space:]]|$)/) }
		key == "uris:" { uris = $0 }
		key == "suites:" { suites = $0 }
		key == "components:" { comps = $0 }
		key == "signed-by:" { signed = $0 }
		key == "enabled:" && tolower($0) == "no" { uris = "" }
		END { flush() }' "$f"
	done
} >"$apt/sources.tmp"
# One-line entries go to sources.list, deb822 ones to a .sources file.
grep '^deb-src ' "$apt/sources.tmp" >"$apt/sources.list" || :
grep -v '^deb-src ' "$apt/sources.tmp" >"$apt/sources.list.d/debian.sources" || :
rm -f "$apt/sources.tmp"
[ -s "$apt/sources.list" ] || [ -s "$apt/sources.list.d/debian.sources" ] || {
	echo "lua-source.sh: no Debian deb entry in /etc/apt/sources.list(.d)" >&2
	exit 1
}

cat >"$apt/apt.conf" <<CONF
Dir::Etc::SourceList "$apt/sources.list";
Dir::Etc::SourceParts "$apt/sources.list.d";
Dir::State::Lists "$apt/lists";
Dir::Cache "$apt/cache";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT::Sandbox::User "root";
CONF
export APT_CONFIG="$apt/apt.conf"

apt-get update -qq
# The version liblua5.4-dev is at, when it is installed and the mirror
# still has its source; the mirror's newest otherwise.
v=$(dpkg-query -W -f='${Version}' liblua5.4-dev 2>/dev/null || :)
cd "$dir/src"
if [ -z "$v" ] || ! apt-get source -qq "lua5.4=$v" >/dev/null 2>&1; then
	apt-get source -qq lua5.4 >/dev/null
fi
src=$(ls -d lua5.4-*/ | head -n 1)
[ -f "$src/src/lapi.c" ] || { echo "lua-source.sh: no src/lapi.c in $src" >&2; exit 1; }
mv "$src" "$dir/lua5.4"
echo "lua-source.sh: $(ls *.dsc) unpacked in $dir/lua5.4"
