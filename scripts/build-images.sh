#!/bin/sh
# Builds the images of this repository, tagged for a registry of your own, from a clone (docs/deployment.md,
# "From a clone to your registry"):
#
#   scripts/build-images.sh [--backend postgresql|opensearch|all] [--push] [--dry-run] <registry> [<tag>]
#
#   <registry>  prefix of the image names, e.g. registry.example.com/team: the images become
#               <registry>/workflow-index/server-postgresql:<tag> and so on (the names the manifests use).
#   <tag>       defaults to the version in package.json, the tag the manifests of this checkout pin.
#   --backend   only the images one backend runs (default: all).
#   --push      `docker push` each image after it is built.
#   --dry-run   print the docker commands instead of running them.
#
# At the end it prints the `images:` entries for your overlay. Needs Docker (or a docker-compatible CLI, see
# DOCKER) and nothing else; the builds run in the repository root, the build context of every Dockerfile.
set -eu

usage() {
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
}

backend=all
push=false
dry_run=false
registry=
tag=
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) [ $# -ge 2 ] || { usage >&2; exit 2; }; backend=$2; shift 2 ;;
    --backend=*) backend=${1#--backend=}; shift ;;
    --push) push=true; shift ;;
    --dry-run) dry_run=true; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "build-images: unknown option $1" >&2; usage >&2; exit 2 ;;
    *)
      if [ -z "$registry" ]; then registry=$1
      elif [ -z "$tag" ]; then tag=$1
      else echo "build-images: too many arguments" >&2; usage >&2; exit 2
      fi
      shift ;;
  esac
done
case "$backend" in
  postgresql|opensearch|all) ;;
  *) echo "build-images: --backend must be postgresql, opensearch or all, not $backend" >&2; exit 2 ;;
esac
[ -n "$registry" ] || { echo "build-images: the registry is missing" >&2; usage >&2; exit 2; }
registry=${registry%/}

cd "$(dirname "$0")/.."
pinned=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' package.json | head -n 1)
[ -n "$tag" ] || tag=$pinned
docker=${DOCKER:-docker}

# <dockerfile> <target or -> <image name, as the manifests name it> <backends>
IMAGES='Dockerfile.server postgresql workflow-index/server-postgresql postgresql
Dockerfile.server opensearch workflow-index/server-opensearch opensearch
Dockerfile.server opensearch-normalizer workflow-index/normalizer-opensearch opensearch
Dockerfile.init - workflow-index/init postgresql,opensearch'

selected=$(printf '%s\n' "$IMAGES" | while read -r file target name backends; do
  case "$backend,$backends" in
    all,*|postgresql,*postgresql*|opensearch,*opensearch*) echo "$file $target $name" ;;
  esac
done)

run() {
  if [ "$dry_run" = true ]; then echo "$*"; else echo "+ $*" >&2; "$@"; fi
}

printf '%s\n' "$selected" | while read -r file target name; do
  if [ "$target" = - ]; then
    run "$docker" build -f "$file" -t "$registry/$name:$tag" .
  else
    run "$docker" build -f "$file" --target "$target" -t "$registry/$name:$tag" .
  fi
  if [ "$push" = true ]; then run "$docker" push "$registry/$name:$tag"; fi
done

echo
echo "# images: of your overlay (docs/deployment.md, \"Your own overlay\")"
echo "images:"
printf '%s\n' "$selected" | while read -r file target name; do
  echo "  - name: $name"
  echo "    newName: $registry/$name"
done
if [ "$tag" != "$pinned" ]; then
  echo "# The tag $tag is not the one this checkout's manifests pin ($pinned): set it in a release component" \
    "(docs/deployment.md, \"Upgrades\"), not here, so the migration Job is named after it."
fi
