#!/usr/bin/env bash
# Record what the `unjudged` command line prints and writes, to prove that a refactor changes
# nothing: run it on two trees and `diff -r` the two output folders.
#
#   benchmarks/compare_outputs.sh PYTHON SRC_DIR OUT_DIR
#
# Runs `PYTHONPATH=SRC_DIR/src PYTHON -m unjudged ...` over every command on the real data in
# $UNJUDGED_DATA (default /work/shared/data). For each command OUT_DIR gets NAME.txt (the
# command line, exit code, stdout and stderr) and, when the command writes files, NAME.files/
# with each of them: text files (tables, TSV, JSON, HTML, qrels) byte for byte; PNG, PDF and
# SVG only as FILE.info saying whether the file is there and non-empty (matplotlib's bytes
# vary); .npz and .parquet as FILE.info listing their arrays / columns with a SHA-256 of the
# values.
#
# Each command runs in a fresh empty working folder (so relative paths in outputs stay
# stable), with stdin closed. Normalised in all recorded text (sed): the temporary work folder
# -> <WORK>, SRC_DIR -> <SRC>, the data folder -> <DATA>, PYTHON -> <PYTHON>, and timings:
# `seconds  N` of `text index`, `... in N s` / `, N s` of the experiments, and the report's
# elapsed time. Inputs derived from the data (synthetic runs for the diversity qrels and
# Cranfield, small error files) are made with awk/sort only, never with the tree under test.
#
# Takes about 2-3 minutes on 2 cores.
set -u

if [ $# -ne 3 ]; then
    echo "usage: $0 PYTHON SRC_DIR OUT_DIR" >&2
    exit 2
fi
PY=$1
SRC=$(cd "$2" && pwd -P) || exit 2
OUT=$3
DATA=${UNJUDGED_DATA:-/work/shared/data}
DATA=$(cd "$DATA" && pwd -P) || exit 2
command -v "$PY" >/dev/null 2>&1 || { echo "$0: no python at $PY" >&2; exit 2; }
[ -d "$SRC/src/unjudged" ] || { echo "$0: no $SRC/src/unjudged" >&2; exit 2; }

mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd -P)
if [ -n "$(ls -A "$OUT")" ]; then
    echo "$0: $OUT is not empty" >&2
    exit 2
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/golden_work.XXXXXX") || exit 2
WORK=$(cd "$WORK" && pwd -P)
trap 'rm -rf "$WORK"' EXIT
IN=$WORK/in
mkdir -p "$IN" "$WORK/cwd" "$WORK/tmp" "$WORK/xdg"

# a deterministic environment for the children
export PYTHONHASHSEED=0 TZ=UTC LC_ALL=C.UTF-8 LANG=C.UTF-8 MPLBACKEND=Agg COLUMNS=100
export TMPDIR=$WORK/tmp XDG_CACHE_HOME=$WORK/xdg MPLCONFIGDIR=$WORK/tmp/mpl
unset UNJUDGED_MAX_LINE PYTHONSTARTUP PYTHONWARNINGS NO_COLOR FORCE_COLOR 2>/dev/null || true

START=$(date +%s)

# ---------------------------------------------------------------- normalisation and running

norm() {  # stdin -> stdout with paths and timings made stable
    sed -E \
        -e "s#${WORK}#<WORK>#g" \
        -e "s#${SRC}#<SRC>#g" \
        -e "s#${DATA}#<DATA>#g" \
        -e "s#${PY}#<PYTHON>#g" \
        -e 's#^(seconds +)[0-9.]+$#\1<T>#' \
        -e 's#( in )[0-9]+\.[0-9]+ s$#\1<T> s#' \
        -e 's#(repetitions, seed -?[0-9]+, )[0-9]+\.[0-9]+ s#\1<T> s#' \
        -e 's#("elapsed": ?)[0-9.e+-]+#\1<T>#g' \
        -e 's#([0-9]+\.[0-9]+|[0-9]+) ?(s|seconds) (elapsed|wall)#<T> \2 \3#g' \
        -e 's#(in |took )[0-9]+\.[0-9]+ ?s([^a-z])#\1<T> s\2#g'
}

describe_binary() {  # FILE -> a description of an .npz or .parquet file's contents
    "$PY" - "$1" <<'EOF'
import hashlib, sys
path = sys.argv[1]
try:
    if path.endswith(".npz"):
        import numpy as np
        with np.load(path, allow_pickle=False) as z:
            for k in sorted(z.files):
                a = z[k]
                print(k, a.dtype, a.shape, hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest())
    else:
        import pyarrow.parquet as pq
        t = pq.read_table(path)
        print(t.schema)
        print("rows", t.num_rows)
        print("sha256", hashlib.sha256(t.to_pandas().to_csv(index=False).encode()).hexdigest())
except Exception as exc:  # the file is recorded as unreadable
    print("unreadable:", type(exc).__name__, exc)
EOF
}

collect() {  # NAME CWD: the files a command wrote into its working folder
    local name=$1 cwd=$2 f rel dest
    [ -n "$(ls -A "$cwd")" ] || return 0
    mkdir -p "$OUT/$name.files"
    (cd "$cwd" && find . -type f | LC_ALL=C sort) | while IFS= read -r rel; do
        f=$cwd/${rel#./}
        dest=$OUT/$name.files/${rel#./}
        mkdir -p "$(dirname "$dest")"
        case "$rel" in
            *.png|*.PNG|*.pdf|*.svg)
                if [ -s "$f" ]; then echo "exists, non-empty" >"$dest.info"
                else echo "EMPTY" >"$dest.info"; fi ;;
            *.npz|*.parquet)
                describe_binary "$f" | norm >"$dest.info" ;;
            *)
                norm <"$f" >"$dest" ;;
        esac
    done
}

NCMD=0
run() {  # NAME ARGS...: run `python -m unjudged ARGS...` in a fresh folder and record it
    local name=$1; shift
    local cwd=$WORK/cwd/$name rc
    mkdir -p "$cwd"
    NCMD=$((NCMD + 1))
    (cd "$cwd" && PYTHONPATH="$SRC/src" "$PY" -m unjudged "$@") \
        >"$WORK/stdout" 2>"$WORK/stderr" </dev/null
    rc=$?
    {
        printf '## command\nunjudged'
        printf ' %q' "$@"
        printf '\n## exit\n%s\n## stdout\n' "$rc"
        cat "$WORK/stdout"
        printf '## stderr\n'
        cat "$WORK/stderr"
    } | norm >"$OUT/$name.txt"
    collect "$name" "$cwd"
    printf '%-44s exit %s\n' "$name" "$rc" >>"$WORK/summary"
}

# ---------------------------------------------------------------- inputs

TE=$DATA/trec_eval/test
C1=$DATA/castorini-TREC-COVID/round1
Q1=$C1/qrels/qrels-rnd1.txt
LB=$C1/leaderboard.csv
AQ=$DATA/anserini-tools/qrels
Q2=$AQ/qrels.covid-round2.txt
Q12=$AQ/qrels.covid-round12.txt
QC=$AQ/qrels.covid-complete.txt
RUNS=("$C1/runs/run1.xz" "$C1/runs/run3.xz" "$C1/runs/BBGhelani1.xz" "$C1/runs/BBGhelani2.xz"
      "$C1/runs/T5R1.xz")
DIV=$DATA/ssanner-diversify/files/trec/qrels.diversity
CRAN=$DATA/cranfield-noramtboraas
CRAN_DOCS=$CRAN/cran.all.1400
PM=$DATA/bst-mug-trec-pm/src/main/resources/gold-standard

# the 5 runs as a folder (runs given as a directory)
mkdir -p "$IN/covid-runs"
cp "${RUNS[@]}" "$IN/covid-runs/"

# Web 2009 diversity qrels: three synthetic runs over its judged documents (100 per topic)
awk '{print $1, $3}' "$DIV" | sort -u -k1,1n -k2,2 >"$IN/div-pairs"
awk '{ if ($1 != t) { t = $1; r = 0 } if (++r <= 100) print $1, "Q0", $2, r, 1000 - r, "divA" }' \
    "$IN/div-pairs" >"$IN/div-A.run"
sort -k1,1n -k2,2r "$IN/div-pairs" |
    awk '{ if ($1 != t) { t = $1; r = 0 } if (++r <= 100) print $1, "Q0", $2, r, 1000 - r, "divB" }' \
    >"$IN/div-B.run"
awk '{ n = split($2, p, "-"); print $1, p[n], $2 }' "$IN/div-pairs" | sort -k1,1n -k2,2 -k3,3 |
    awk '{ if ($1 != t) { t = $1; r = 0 } if (++r <= 100) print $1, "Q0", $3, r, 1000 - r, "divC" }' \
    >"$IN/div-C.run"

# Cranfield as diversity qrels (topics 1-30; codes 1-2 and 3-4 as two subtopics, -1 judged
# non-relevant) and three synthetic runs of 50 documents per topic
awk '$1 <= 30 && NF >= 3 { s = ($3 == -1) ? 0 : ($3 <= 2 ? 1 : 2); g = ($3 > 0) ? 1 : 0;
        print $1, s, $2, g }' "$CRAN/cranqrel" | sort -k1,1n -k3,3n -k2,2n -u >"$IN/cran-div.qrels"
awk 'BEGIN { for (q = 1; q <= 30; q++) { r = 0; delete seen
        for (i = 0; i < 50; i++) { d = (q * 37 + i * 101) % 1400 + 1
            print q, "Q0", d, ++r, 100 - r, "noise" } } }' >"$IN/cran-noise.run"
awk 'NR == FNR { if ($1 <= 30 && $3 > 0) rel[$1] = rel[$1] " " $2; next }
     END { for (q = 1; q <= 30; q++) { r = 0; delete seen; n = split(rel[q], ds, " ")
            for (i = 1; i <= n && r < 50; i++) if (!(ds[i] in seen)) { seen[ds[i]] = 1
                print q, "Q0", ds[i], ++r, 100 - r, "relfirst" }
            for (i = 0; r < 50; i++) { d = (q * 13 + i * 7) % 1400 + 1
                if (!(d in seen)) { seen[d] = 1; print q, "Q0", d, ++r, 100 - r, "relfirst" } } } }' \
    "$CRAN/cranqrel" >"$IN/cran-relfirst.run"
awk 'NR == FNR { if ($1 <= 30 && $3 > 0 && $3 <= 2) rel[$1] = rel[$1] " " $2; next }
     END { for (q = 1; q <= 30; q++) { r = 0; delete seen; n = split(rel[q], ds, " ")
            for (i = 0; r < 50; i++) { if (i % 2 == 0 && i / 2 + 1 <= n) d = ds[i / 2 + 1]
                else d = (q * 53 + i * 11) % 1400 + 1
                if (!(d in seen)) { seen[d] = 1; print q, "Q0", d, ++r, 100 - r, "mixed" } } } }' \
    "$CRAN/cranqrel" >"$IN/cran-mixed.run"

# TREC PM 2017 sampled qrels: a synthetic run of 200 sampled-pool documents per topic
awk '{print $1, $3}' "$PM/sample-qrels-final-abstracts.txt" | sort -u -k1,1n -k2,2 |
    awk '{ if ($1 != t) { t = $1; r = 0 } if (++r <= 200) print $1, "Q0", $2, r, 1000 - r, "pmrun" }' \
    >"$IN/pm.run"

# error inputs
printf '1 Q0 doc1\n1 Q0 doc2 2 0.5 bad\n' >"$IN/malformed.run"
printf '999 Q0 docA 1 2.0 lonely\n999 Q0 docB 2 1.0 lonely\n' >"$IN/lonely.run"
printf '# topics to keep\n1-3\n7\n' >"$IN/topics.txt"

# ---------------------------------------------------------------- trec_eval (its test suite)

run te-default            trec_eval "$TE/qrels.test" "$TE/results.test"
run te-with-comments      trec_eval "$TE/qrels.test.with-comments" "$TE/results.test"
run te-comment            trec_eval "$TE/qrels.comment.test" "$TE/results.comment.test"
run te-a                  trec_eval -m all_trec "$TE/qrels.test" "$TE/results.test"
run te-aq                 trec_eval -m all_trec -q "$TE/qrels.test" "$TE/results.test"
run te-aqc                trec_eval -m all_trec -q -c "$TE/qrels.test" "$TE/results.trunc"
run te-aqcM               trec_eval -m all_trec -q -c -M100 "$TE/qrels.test" "$TE/results.trunc"
run te-aql                trec_eval -m all_trec -mrelstring.20 -q -l2 "$TE/qrels.rel_level" "$TE/results.test"
run te-meas_params        trec_eval -q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 \
    -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 \
    -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 "$TE/qrels.test" "$TE/results.test"
run te-aqZ                trec_eval -q -m all_trec -Z "$TE/zscores_file" "$TE/qrels.test" "$TE/results.test"
run te-302                trec_eval -q "$TE/qrels-302.test" "$TE/results-302.test"
run te-nJ                 trec_eval -n -J -q -m official "$TE/qrels.rel_level" "$TE/results.test"
run te-123                trec_eval -m set -q "$TE/qrels.123" "$TE/results.test"
run te-covid              trec_eval -c -m ndcg_cut.10 -m P.5 -m bpref -m map "$Q1" "${RUNS[0]}"
run err-te-prefs          trec_eval -m all_prefs -q -R prefs "$TE/prefs.test" "$TE/prefs.results.test"
run err-te-unknown-measure trec_eval -m no_such_measure "$TE/qrels.test" "$TE/results.test"
run err-te-missing-run    trec_eval "$TE/qrels.test" "$WORK/no-such-run"

# ---------------------------------------------------------------- eval

M5=(-m nDCG@10 -m P@5 -m Bpref -m AP -m Judged@10)
run eval-te-trec-q        eval "$TE/qrels.test" "$TE/results.test" -m map -m P_10 -m ndcg_cut_10 \
    -m bpref -m recip_rank -q -f trec
run eval-te-c-M           eval "$TE/qrels.test" "$TE/results.trunc" -m AP -m P@10 -m nDCG -c -M 100 -q
run eval-te-l2            eval "$TE/qrels.rel_level" "$TE/results.test" -m AP -m P@10 -m "nDCG@20" -l 2 -f tsv
run eval-te-J             eval "$TE/qrels.rel_level" "$TE/results.test" -m AP -m nDCG@10 -m Bpref -J -q -f csv
run eval-te-negative-nonrel eval "$TE/qrels.rel_level" "$TE/results.test" -m AP -m Judged@10 -m Bpref --negative nonrel
run eval-covid            eval "$Q1" "${RUNS[@]}" "${M5[@]}"
run eval-covid-dir-tsv-q  eval "$Q1" "$IN/covid-runs" "${M5[@]}" -f tsv -q -o scores.tsv
run eval-covid-glob-jsonl eval "$Q1" "$C1/runs/BBGhelani*.xz" -m nDCG@10 -m AP -f jsonl -o scores.jsonl
run eval-covid-csv-names-file eval "$Q1" "${RUNS[@]}" -m P@5 -f csv --names file
run eval-covid-trec       eval "$Q1" "${RUNS[0]}" "${RUNS[4]}" -m ndcg_cut_10 -m map -f trec -q
run eval-covid-params     eval "$Q1" "${RUNS[@]}" -m "nDCG(dcg='exp-log2')@10" -m "P(rel=2)@10" \
    -m ndcg_cut_10 -m RBP -m Rprec -m recall@100
run eval-covid-assessment eval "$Q1" "${RUNS[@]}" -m Judged@10 -m Ar@100 -m MAA -m AssessedAP@100 -m Bpref
run eval-covid-ties-docno eval "$Q1" "${RUNS[@]}" -m AP -m nDCG@10 --ties docno
run eval-covid-ties-rank  eval "$Q1" "${RUNS[@]}" -m AP -m nDCG@10 --ties rank
run eval-covid-ties-file  eval "$Q1" "${RUNS[@]}" -m AP -m nDCG@10 --ties file
run eval-covid-complete   eval "$QC" "${RUNS[@]}" -m AP -m nDCG@10 -c -M 100
for s in condensed upper guaranteed_lower guaranteed_upper; do
    run "eval-unjudged-$s" eval "$Q1" "${RUNS[@]}" -m nDCG@10 -m P@5 -m AP --unjudged "$s"
done
run eval-unjudged-bootstrap eval "$Q1" "${RUNS[@]}" -m nDCG@10 -m P@5 --unjudged bootstrap \
    -b 200 --seed 3 --point median --prior pool -q -f tsv
run eval-unjudged-bootstrap-run eval "$Q1" "${RUNS[@]}" -m nDCG@10 --unjudged bootstrap \
    -b 200 --seed 3 --point q0.75 --prior run
for t in t wilcoxon sign randomisation bootstrap; do
    run "eval-baseline-$t" eval "$Q1" "${RUNS[@]}" -m P@10 -m AP --baseline run1 --test "$t" --seed 5
done
run eval-baseline-file-tsv eval "$Q1" "${RUNS[@]}" -m nDCG@10 --baseline "${RUNS[4]}" --alpha 0.01 -f tsv
run eval-stream           eval "$Q1" "${RUNS[@]}" "${M5[@]}" --stream
run eval-stream-block-q   eval "$Q1" "${RUNS[@]}" -m nDCG@10 -m AP --stream --stream-block 4096 -q -f jsonl
run eval-stream-te        eval "$TE/qrels.test" "$TE/results.test" -m AP -m P@10 --stream -c -f trec -q
run err-eval-stream-ungrouped eval "$TE/qrels.test" "$TE/results.trunc" -m AP --stream
run eval-diversity        eval "$DIV" "$IN/div-A.run" "$IN/div-B.run" "$IN/div-C.run" -m alpha-nDCG@20 \
    -m ERR-IA@20 -m nERR-IA@20 -m NRBP -m nNRBP -m P-IA@20 -m MAP-IA -m S-recall@20 -m alpha-DCG@20 -m Judged@20
run eval-diversity-J-q    eval "$DIV" "$IN/div-A.run" "$IN/div-C.run" -m alpha-nDCG@20 -m nERR-IA@20 -J -q -f tsv
run eval-diversity-cran   eval "$IN/cran-div.qrels" "$IN/cran-relfirst.run" "$IN/cran-noise.run" \
    "$IN/cran-mixed.run" -m alpha-nDCG@20 -m ERR-IA@20 -m nDCG@20 -m P@10
run eval-lonely-warning   eval "$Q1" "${RUNS[0]}" "$IN/lonely.run" -m P@5
run err-eval-lonely-strict eval "$Q1" "${RUNS[0]}" "$IN/lonely.run" -m P@5 --strict
run err-eval-missing-qrels eval "$WORK/no-such-qrels" "${RUNS[0]}" -m P@5
run err-eval-malformed-run eval "$Q1" "$IN/malformed.run" -m P@5
run err-eval-unknown-measure eval "$Q1" "${RUNS[0]}" -m NoSuchMeasure@10
run err-eval-all_trec     eval "$TE/qrels.test" "$TE/results.test" -m all_trec
run err-eval-stream-upper eval "$Q1" "${RUNS[0]}" -m P@5 --stream --unjudged upper
run err-eval-stream-baseline eval "$Q1" "${RUNS[0]}" "${RUNS[1]}" -m P@5 --stream --baseline run1
run err-eval-baseline-missing eval "$Q1" "${RUNS[0]}" "${RUNS[1]}" -m P@5 --baseline nosuchrun
run err-max-line-length   --max-line-length 10 eval "$Q1" "${RUNS[0]}" -m P@5
run err-no-command        nosuchcommand
run version               --version
run help                  --help

# ---------------------------------------------------------------- measures, demo

run measures              measures
run measures-nDCG         measures nDCG
run measures-alpha-nDCG   measures alpha-nDCG
run measures-infAP        measures infAP
run err-measures-unknown  measures NoSuchMeasure
run demo                  demo --report demo.html

# ---------------------------------------------------------------- estimate

run estimate              estimate "$Q1" "${RUNS[@]}" -m nDCG@10 -m P@5 -b 200 --seed 7 --jobs 1
run estimate-q-jsonl      estimate "$Q1" "${RUNS[@]}" -m nDCG@10 -b 200 --seed 7 --jobs 1 -q \
    -f jsonl --methods bootstrap,upper,nonrel --prior pool --point median -o est.jsonl
run estimate-tsv-c-run    estimate "$Q1" "${RUNS[@]}" -m AP -m "P(rel=2)@10" -b 100 --seed 1 --jobs 1 \
    -c -M 100 --prior run --point q0.75 -f tsv
run estimate-csv-guaranteed estimate "$Q1" "${RUNS[@]}" -m nDCG@10 -m Bpref --methods guaranteed,condensed -f csv
run estimate-samples-plot estimate "$Q1" "${RUNS[0]}" "${RUNS[2]}" -m nDCG@10 -b 50 --seed 2 --jobs 1 \
    --samples samples.npz --plot est.png
run estimate-samples-parquet estimate "$Q1" "${RUNS[4]}" -m P@5 -b 50 --seed 2 --jobs 1 \
    --samples samples.parquet --point mode
run estimate-fit-truth    estimate "$Q1" "${RUNS[@]}" -m nDCG@10 -b 200 --seed 4 --jobs 1 --fit-truth "$QC"
run err-estimate-methods  estimate "$Q1" "${RUNS[0]}" -m nDCG@10 --methods nonrel,bogus
run err-estimate-point    estimate "$Q1" "${RUNS[0]}" -m nDCG@10 --point q7
run err-estimate-plot-suffix estimate "$Q1" "${RUNS[0]}" -m nDCG@10 -b 10 --plot est.jpg

# ---------------------------------------------------------------- report

run report                report "$Q1" "${RUNS[@]}" -m nDCG@10 -m P@5 -o report.html --tables tables \
    --png figures -b 200 --seed 1 --jobs 1 --topic-panels 1 --top-topics 5
run report-baseline-c     report "$Q1" "${RUNS[@]}" -m AP -o report.html -b 100 --seed 2 --jobs 1 \
    --baseline run1 -c --topic-panels 0 --tables tables
run err-report-no-output  report "$Q1" "${RUNS[0]}" -m AP

# ---------------------------------------------------------------- compare-qrels

run compare-qrels         compare-qrels --orig "$Q1" --new "$Q12" "${RUNS[@]}" -m P@5 -m nDCG@10 \
    -m Bpref -m AP --plot compare.png
run compare-qrels-per-run compare-qrels --orig "$Q1" --new "$Q12" "${RUNS[@]}" -m nDCG@10 -m AP \
    --per-run -f tsv -o per-run.tsv
run compare-qrels-jsonl   compare-qrels --orig "$Q1" --new "$QC" "$IN/covid-runs" -m nDCG@10 \
    -f jsonl --top 2 --decimals 4 -c
run compare-qrels-csv     compare-qrels --orig "$Q1" --new "$Q2" "${RUNS[@]}" -m P@5 -f csv -l 2

# ---------------------------------------------------------------- qrels

run qrels-stats           qrels stats "$Q1"
run qrels-stats-two       qrels stats "$Q1" "$Q2"
run qrels-stats-tsv       qrels stats "$Q1" "$Q2" --no-union -l 2 -f tsv
run qrels-stats-jsonl     qrels stats "$TE/qrels.rel_level" -f jsonl -o stats.jsonl
run qrels-stats-csv       qrels stats "$DIV" -f csv
run qrels-filter-iteration qrels filter "$Q2" --iteration 1.5 -o js15.txt
run qrels-filter-topics   qrels filter "$Q2" --topics 1,2,5-9 --exclude-iteration 2
run qrels-filter-topics-file qrels filter "$Q1" --topics-file "$IN/topics.txt" --iteration 0.5,1
run qrels-merge-max       qrels merge "$Q1" "$Q2" --on-conflict max -o merged.txt
run qrels-merge-first     qrels merge "$TE/qrels.test" "$TE/qrels.rel_level" --on-conflict first
run qrels-merge-by-iteration qrels merge "$DIV" "$IN/cran-div.qrels" --by-iteration -o merged.txt
run err-qrels-merge-conflict qrels merge "$TE/qrels.test" "$TE/qrels.rel_level"
run qrels-diff            qrels diff "$Q1" "$Q12"
run qrels-diff-list       qrels diff "$Q1" "$Q12" --list -f tsv -o diff.tsv
run qrels-diff-jsonl      qrels diff "$TE/qrels.test" "$TE/qrels.rel_level" -f jsonl
run err-qrels-missing     qrels stats "$WORK/no-such-qrels"

# ---------------------------------------------------------------- pool, coverage

run pool-depth7-groups    pool "$IN/covid-runs" --depth 7 --groups "$LB" --runs-per-group 1 -o pool.txt
run pool-8-14-exclude     pool "${RUNS[@]}" --from-rank 8 --depth 14 --exclude "$Q1" --format tsv \
    --summary tsv -o pool.tsv
run pool-pairs-stdout     pool "${RUNS[@]}" --depth 5 --format pairs
run pool-trec-eval-jsonl  pool "${RUNS[@]}" --depth 3 --ties trec_eval --summary jsonl -o pool.txt
run pool-csv-names-file   pool "${RUNS[@]}" --depth 2 --names file --summary csv -o pool.txt
run err-pool-no-depth     pool "${RUNS[0]}"
run coverage              coverage "$Q1" "${RUNS[@]}" --pool-depth 7 --plot coverage.png --unjudged-out unjudged.txt
run coverage-tsv-bands    coverage "$Q1" "$IN/covid-runs" --bands 1-10,11-100,101-1000 -f tsv
run coverage-jsonl        coverage "$Q12" "${RUNS[@]}" -f jsonl --ties docno -o coverage.jsonl
run err-coverage-bands    coverage "$Q1" "${RUNS[0]}" --bands 10-1

# ---------------------------------------------------------------- matrix (significance)

run matrix                matrix "$Q1" "${RUNS[@]}" -m P -m AP --depths 10,30,100 --pairs --weak-only \
    --plot matrix.png
run matrix-tsv-summary-holm matrix "$Q1" "${RUNS[@]}" -m P --depths 10,100 --test t-holm -f tsv --summary
run matrix-jsonl-tukey    matrix "$Q1" "${RUNS[@]}" -m nDCG --depths 10,20 --test tukey -f jsonl
run matrix-randomisation  matrix "$Q1" "${RUNS[@]}" -m P --depths 10 --test randomisation --seed 3 \
    --ap-denominator depth --pairs
run matrix-csv-wilcoxon   matrix "$Q1" "${RUNS[@]}" -m "P(rel=2)" --depths 5,10 --test wilcoxon -f csv -o m.csv
for t in anova-holm t-bonferroni t sign bootstrap; do
    run "matrix-test-$t" matrix "$Q1" "${RUNS[@]}" -m AP --depths 10,100 --test "$t" --seed 1 -f tsv
done
run matrix-plot-folder    matrix "$Q1" "${RUNS[@]}" -m P --depths 10,30 --plot figs/
run err-matrix-depths     matrix "$Q1" "${RUNS[@]}" --depths ten

# ---------------------------------------------------------------- sample, infer

run sample-uniform        sample "$Q1" "${RUNS[@]}" --design uniform:0.2 --seed 1 -o sampled.txt
run sample-strata         sample "$Q1" "${RUNS[@]}" --design depth:5+strata:3,1.5,1 --seed 1 --trial 2 -o sampled.txt
run sample-depth-uniform  sample "$Q1" "${RUNS[@]}" --design depth:5+uniform:0.1 --seed 2
run sample-depth-as-many  sample "$Q1" "${RUNS[@]}" --design depth:3+uniform --ties file -o s.txt
run err-sample-design     sample "$Q1" "${RUNS[0]}" --design nonsense:1
S_STRATA=$WORK/cwd/sample-strata/sampled.txt
S_UNIF=$WORK/cwd/sample-uniform/sampled.txt
run infer-strata          infer "$S_STRATA" "${RUNS[@]}"
run infer-strata-ci-q     infer "$S_STRATA" "${RUNS[@]}" -m infAP -m xinfAP -m infNDCG@10 -m iP@10 \
    --ci 0.95 -q -f tsv -o infer.tsv
run infer-uniform-bootstrap infer "$S_UNIF" "${RUNS[0]}" "${RUNS[4]}" -m xinfAP -m infNDCG \
    -m "iIPrec(recall=0.5)" --ci 0.9 --ci-method bootstrap -b 50 --seed 2 -f jsonl
run infer-te-4col         infer "$TE/qrels.rel_level" "$TE/results.test" -m infAP -m xinfAP -m iP@10 \
    -m "iIPrec(recall=0.5)" -m iNumRel -m iNumRelRet -m AP -q
run infer-pm2017          infer "$PM/sample-qrels-final-abstracts.txt" "$IN/pm.run" --ci 0.95 -f csv
run infer-pm2017-J-c      infer "$PM/sample-qrels-final-abstracts.txt" "$IN/pm.run" -m infAP -m iP@10 -J -c -M 50
run err-infer-unknown     infer "$S_STRATA" "${RUNS[0]}" -m infNoSuch

# ---------------------------------------------------------------- experiments

run exp-sampling          experiment sampling "$Q1" "${RUNS[@]}" --design uniform:0.3 \
    --design depth:3+uniform --trials 2 --contributing "$LB" -m infAP -m infNDCG -m iP@10 \
    --jobs 1 --seed 1 --details details.csv --plot sampling.png --scatter scatter.png
run exp-sampling-jsonl    experiment sampling "$Q1" "${RUNS[@]}" --design depth:3+strata:3,1.5,1:0.2 \
    --trials 1 --jobs 1 --ci 0.9 -f jsonl --details details.parquet
run exp-logo              experiment leave-one-group-out "$Q1" "${RUNS[@]}" --groups "$LB" --depth 7 \
    -m nDCG@10 -m P@5 -b 100 --seed 1 --jobs 1 --top-fraction 1.0 --details logo.tsv --plot logo.png
run exp-logo-tsv          experiment leave-one-group-out "$Q1" "${RUNS[@]}" --groups "$LB" --depth 5 \
    -m AP --strategies nonrel,upper,condensed,bootstrap:pool -b 50 --jobs 1 -f tsv --point median \
    --details logo.jsonl
run exp-logo-parquet      experiment leave-one-group-out "$Q1" "${RUNS[@]}" --groups "$LB" --depth 7 \
    -m nDCG@10 --strategies nonrel,bootstrap:run -b 50 --jobs 1 -f csv --details logo.parquet
run err-exp-logo-groups   experiment leave-one-group-out "$Q1" "${RUNS[@]}" --groups "$WORK/no-such-groups" \
    --depth 7 -m AP
CRUNS=("$IN/cran-relfirst.run" "$IN/cran-noise.run" "$IN/cran-mixed.run")
run exp-diversity-sampling experiment diversity-sampling "$IN/cran-div.qrels" "${CRUNS[@]}" \
    --corpus "$CRAN_DOCS" --levels 0.1,0.5 --repetitions 2 --jobs 1 --seed 1 --stopwords english \
    --cache-dir cache --details details.jsonl --plot tau.png
run exp-diversity-sampling-tsv experiment diversity-sampling "$IN/cran-div.qrels" "${CRUNS[@]}" \
    --corpus "$CRAN_DOCS" --levels 0.2 --repetitions 3 --jobs 1 --no-cache -f tsv \
    --reference alpha-nDCG@10,NRBP --divergence ABS-NB@10,DELTA-RB@10 --details details.csv
run err-exp-diversity-levels experiment diversity-sampling "$IN/cran-div.qrels" "${CRUNS[0]}" \
    --corpus "$CRAN_DOCS" --levels 2 --no-cache

# ---------------------------------------------------------------- text

TCACHE=$WORK/text-cache
run text-index-cran       text index "$CRAN_DOCS" --stopwords english --stem english --cache-dir "$TCACHE"
run text-index-cran-cached text index "$CRAN_DOCS" --stopwords english --stem english --cache-dir "$TCACHE"
run text-index-npl        text index "$DATA/npl-vaswani-stefreschke/npl/doc-text" --no-cache --top 5
run text-index-cacm       text index "$DATA/cacm-atcherepanov/cacm.all" --fields T,W,A --no-cache \
    --stopwords "$DATA/cacm-atcherepanov/common_words" --stem porter
run text-index-cisi       text index "$DATA/cisi-shakiba-alipour/CISI.ALL" --format smart --no-cache --top 0
run text-index-cache-here text index "$CRAN_DOCS" --cache-dir cache --top 3
run text-divergence       text divergence "$IN/cran-div.qrels" "${CRUNS[@]}" --corpus "$CRAN_DOCS" \
    --stopwords english --stem english --cache-dir "$TCACHE"
run text-divergence-q-tsv text divergence "$IN/cran-div.qrels" "${CRUNS[@]}" --corpus "$CRAN_DOCS" \
    -m ABS-NB@10 -m "DELTA-RB(theta=0.9,mu=1000)@20" -q -f tsv --no-cache -o div.tsv
run text-divergence-jsonl text divergence "$IN/cran-div.qrels" "${CRUNS[0]}" --corpus "$CRAN_DOCS" \
    --corpus-format smart --fields T -f jsonl --no-cache --names file
run err-text-divergence-measure text divergence "$IN/cran-div.qrels" "${CRUNS[0]}" --corpus "$CRAN_DOCS" \
    -m KLD@10 --no-cache
run err-text-index-missing text index "$WORK/no-such-corpus" --no-cache

# ---------------------------------------------------------------- summary

END=$(date +%s)
cp "$WORK/summary" "$OUT/_exit-codes.txt"
echo "$0: $NCMD commands in $((END - START)) s -> $OUT" >&2
