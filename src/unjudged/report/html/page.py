"""The page template (string.Template: no template engine needed) and its small pieces."""

from __future__ import annotations

import html
from string import Template
from typing import Any

#: Responsive: the page never gets wider than the window. A wide table scrolls inside its own
#: box (.scroll, headings sticky there), figures shrink to the width available, and long names
#: from the inputs wrap anywhere. Checked at 800 px in tests/test_report_browser.py.
STYLE = """
html { -webkit-text-size-adjust: 100%; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 1100px;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
h1, h3, p, li, summary { overflow-wrap: anywhere; }
.scroll { max-width: 100%; max-height: 70vh; overflow: auto; margin: .6em 0 1.2em; }
table { border-collapse: separate; border-spacing: 0; font-size: 12px; }
th, td { padding: 2px 6px; border-bottom: 1px solid #eee; text-align: right; background: #fff; }
th { background: #f4f4f4; position: sticky; top: 0; z-index: 2; font-weight: 600; }
td:first-child, th:first-child, td:nth-child(2), th:nth-child(2) { text-align: left; }
/* the leaderboard's rank and run stay in view while the other columns scroll sideways; a long
   run name wraps rather than pushing the key columns out of an 800 px window */
table.board td:first-child, table.board th:first-child { position: sticky; left: 0;
  z-index: 1; width: 3.2em; min-width: 3.2em; max-width: 3.2em; box-sizing: border-box; }
table.board td:nth-child(2), table.board th:nth-child(2) { position: sticky; left: 3.2em;
  z-index: 1; min-width: 8em; max-width: 12em; overflow-wrap: anywhere;
  border-right: 1px solid #ddd; }
table.board th:first-child, table.board th:nth-child(2) { z-index: 3; }
/* colour means one thing: a highlighted row needs attention. A rule above a row is a settled
   break; a greyed row a twin of a run above it */
tr.break td { border-top: 2px solid #555; }
tr.twin td { color: #888; }
tr.mark td { background: #ffe2b8; }
tr.mark td:nth-child(2) { font-weight: 600; }
ul.verdict { padding-left: 1.2em; max-width: 60em; }
ul.verdict li { margin: .35em 0; }
li.attention { border-left: 4px solid #e8900c; padding-left: .5em; list-style: none;
  margin-left: -1.2em; }
nav.toc { font-size: 13px; margin: .5em 0 1em; }
nav.toc a { margin-right: .9em; white-space: nowrap; }
details { margin: .5em 0; } summary { cursor: pointer; color: #224; }
img { max-width: 100%; height: auto; display: block; margin: .5em 0; }
p.note { color: #555; max-width: 60em; }
/* the notes said while computing qualify the verdict: shown beside it, never folded */
div.notes { border-left: 4px solid #e8900c; background: #fff7ea; padding: .3em .8em;
  max-width: 60em; margin: 1em 0; }
div.notes h3 { margin: .3em 0; } div.notes ul { padding-left: 1.2em; margin: .3em 0; }
footer { margin-top: 3em; font-size: 12px; color: #444; border-top: 1px solid #ccc; }
footer code { word-break: break-all; }
@media (max-width: 600px) { body { padding: 0 .5em; margin: .8em auto; } }
"""

PAGE = Template("""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title><style>""" + STYLE + """</style></head>
<body>
<h1>$title</h1>
<nav class="toc">Contents: <a href="#verdict">Verdict</a> $notes_toc
<a href="#leaderboard">1. Leaderboard</a>
<a href="#pairs">2. Pairwise comparisons</a> <a href="#topics">3. Per topic</a>
<a href="#collection">4. Collection</a> $judges_toc
<a href="#reproducibility">5. Reproducibility</a></nav>
<section id="verdict"><h2>Verdict</h2>
<p class="note">What the bootstrap's $b draws of the unjudged documents settle about the order of
the runs, what they leave open, and why. Colour in the tables means one thing: a highlighted row
needs attention; a dark rule between two rows is a settled break; a greyed row repeats the
scores of a twin above it.</p>
$verdict
$notes
</section>
<details><summary>How these numbers are made</summary>
<p class="note">How far can these scores be trusted? Every score is shown beside Judged@k, the
share of the top k that is judged. The strategies for unjudged documents: nonrel (trec_eval:
unjudged = non-relevant, the lower end while the pool's normalisers hold), condensed (unjudged
removed), upper (unjudged = relevant where that is comparable) and the bootstrap ($b draws;
point estimate and 90% interval).</p></details>
<section id="leaderboard"><h2>1. Leaderboard</h2>
<details><summary>How to read the leaderboard</summary>
<p class="note">Runs ranked by their mean score (trec_eval's). Per run the bootstrap's 90%
interval of the mean score and of the rank (1 = best; equal scores share the better rank), both
over the same draws for every run. A pair's order is uncertain when the bootstrap puts neither
run ahead in at least 95% of its draws (and they do not tie in 95%), and reversed when it puts
the lower run here ahead in 95% or more. Per run: with how many runs that is so; its tier (a
dark rule marks a break: every run above is settled ahead of every run below) and, for twins
that score the same in 95% of the draws (greyed), the run above it scores the same as;
highlighted when its rank lies outside its own 90% rank interval. The figure (folded) draws a
run orange when its order against a neighbour is not settled; below each table every unsettled
pair. What these intervals cover: only the grades of the unjudged documents, drawn from the
bootstrap's prior$normalisers; the judged grades and the topics are fixed, so they say nothing
of how the scores would change on other topics. Topic sampling is what the p-values of section
2 are about (with unjudged documents counted non-relevant).</p>
</details>
$leaderboard
</section>
<section id="pairs"><h2>2. Pairwise comparisons</h2>
<p class="note">For $against: the mean per-topic score difference and its paired t-test
p-value, the same for the judged fraction (A_p), and the decision-matrix case (Baillie,
Azzopardi, Ruthven, <i>Evaluating epistemic uncertainty under incomplete assessments</i>,
IP&amp;M 2008):
1 no significant difference in either; 2 judged fractions differ but scores do not
(weak); 3 scores differ and the judged fractions do not, or favour the loser; 4 the winner is
also significantly more judged (weak: more judgments could change the result). Highlighted:
case 4 only, a significant difference that more judgments could overturn.
No correction for multiple comparisons. p-values below 0.0001 show as &lt;0.0001
(the --tables files keep the full value).</p>
$pairs
</section>
<section id="topics"><h2>3. Per topic</h2>
<p class="note">Bootstrap distribution of $measure0 per topic with the nonrel, condensed and
upper scores and the point estimate (Figure 1 of Fröbe, Gienapp, Potthast, Hagen,
<i>Bootstrapped nDCG Estimation in the Presence of Unjudged Documents</i>, ECIR 2023), topics
sorted by uncertainty (the bootstrap standard deviation), for the best $n_panels run(s)
(<code>--topic-panels</code>).</p>
$panels
<h3>Topics with the most unjudged documents</h3>
$topics
</section>
<section id="collection"><h2>4. Collection</h2>
<p class="note">Judgments per topic. A topic where more than a third of the judged documents
are relevant (red, highlighted) has historically had many relevant documents left unfound
(Voorhees, <i>Effect on System Rankings of Extending Pools in TREC-COVID Round 1</i>, 2020).
Then the judged share of each run by rank band.</p>
$collection
</section>
$judges
$footer
</body></html>
""")


def figure_html(b64: str, alt: str) -> str:
    """An inline PNG image.

    Example:
        >>> figure_html("AAAA", "a<b")
        '<img alt="a&lt;b" src="data:image/png;base64,AAAA">'
    """
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{b64}">'


def notes_html(notes: list[str]) -> str:
    """The notes said while reading and computing (ReportData.notes) as a block beside the
    verdict, each as the command line printed it; nothing when there were none.

    Example:
        >>> notes_html(["a <b> fallback"]).split("</p>")[1]
        '<ul><li>a &lt;b&gt; fallback</li></ul></div>'
        >>> notes_html([])
        ''
    """
    if not notes:
        return ""
    items = "".join(f"<li>{html.escape(n)}</li>" for n in notes)
    return (f'<div class="notes" id="notes"><h3>Notes ({len(notes)})</h3><p>Said while '
            "reading the inputs and computing; they qualify the verdict above and the "
            "numbers below.</p>"
            f"<ul>{items}</ul></div>")


def footer_html(meta: dict[str, Any]) -> str:
    """The reproducibility footer: command, version, seed, inputs with sha256, time taken.

    Example:
        >>> "&lt;x&gt;" in footer_html({"command": "unjudged report <x>", "inputs": []})
        True
    """
    inputs = meta.get("inputs", [])
    files = "".join(f"<li><code>{html.escape(str(f['file']))}</code> sha256 "
                    f"<code>{html.escape(str(f['sha256']))}</code></li>" for f in inputs)
    elapsed = meta.get("elapsed")
    took = f"{elapsed:.1f} s" if isinstance(elapsed, (int, float)) else "-"
    return (f'<footer id="reproducibility"><h2>5. Reproducibility</h2>'
            f"<p>Command: <code>{html.escape(str(meta.get('command', '')))}</code></p>"
            f"<p>unjudged {html.escape(str(meta.get('version', '')))}; seed "
            f"{html.escape(str(meta.get('seed', '')))}; bootstrap draws "
            f"{html.escape(str(meta.get('b', '')))}; computed in {took}</p>"
            f"<details><summary>Inputs: {len(inputs)} files with their sha256</summary>"
            f"<ul>{files}</ul></details></footer>")
