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
.scroll { max-width: 100%; max-height: 85vh; overflow: auto; margin: .6em 0 1.2em; }
table { border-collapse: collapse; font-size: 12px; }
th, td { padding: 2px 7px; border-bottom: 1px solid #eee; text-align: right; }
th { background: #f4f4f4; position: sticky; top: 0; }
td:first-child, th:first-child, td:nth-child(2), th:nth-child(2) { text-align: left; }
tr.mark td { background: #fff1dc; }
img { max-width: 100%; height: auto; display: block; margin: .5em 0; }
p.note { color: #555; max-width: 60em; }
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
<p class="note">How far can these scores be trusted? Every score is shown beside Judged@k, the
share of the top k that is judged. The strategies for unjudged documents: nonrel (trec_eval:
unjudged = non-relevant, the lower end while the pool's normalisers hold), condensed (unjudged
removed), upper (unjudged = relevant where that is comparable) and the bootstrap ($b draws;
point estimate and 90% interval).</p>
<section id="leaderboard"><h2>1. Leaderboard</h2>
<p class="note">Runs ranked by their mean score (trec_eval's). Per run the bootstrap's 90%
interval of the mean score and of the rank (1 = best; equal scores share the better rank), both
over the same draws for every run. A pair's order is uncertain when the bootstrap puts neither
run ahead in at least 95% of its draws (and they do not tie in 95%), and reversed when it puts
the lower run here ahead in 95% or more. Per run: with how many runs that is so; highlighted
(orange in the figure) when it is so against a neighbouring row, so that the two could swap;
below each table every such pair. What these intervals cover: only the grades of the unjudged
documents, drawn from the bootstrap's prior$normalisers; the judged grades and the topics are
fixed, so they say nothing of how the scores would change on other topics. Topic sampling is
what the p-values of section 2 are about (with unjudged documents counted non-relevant).</p>
$leaderboard
</section>
<section id="pairs"><h2>2. Pairwise comparisons</h2>
<p class="note">For $against: the mean per-topic score difference and its paired t-test
p-value, the same for the judged fraction (A_p), and the decision-matrix case (seed 001):
1 no significant difference in either; 2 judged fractions differ but scores do not
(weak); 3 scores differ and the judged fractions do not, or favour the loser; 4 the winner is
also significantly more judged (weak: more judgments could change the result). Highlighted:
weak cases. No correction for multiple comparisons. p-values below 0.0001 show as &lt;0.0001
(the --tables files keep the full value).</p>
$pairs
</section>
<section id="topics"><h2>3. Per topic</h2>
<p class="note">Bootstrap distribution of $measure0 per topic with the nonrel, condensed and
upper scores and the point estimate (seed 000, Figure 1), topics sorted by uncertainty (the
bootstrap standard deviation), for the best $n_panels run(s) (<code>--topic-panels</code>).</p>
$panels
<h3>Topics with the most unjudged documents</h3>
$topics
</section>
<section id="collection"><h2>4. Collection</h2>
<p class="note">Judgments per topic. A topic where more than a third of the judged documents
are relevant (red, highlighted) has historically had many relevant documents left unfound.
Then the judged share of each run by rank band.</p>
$collection
</section>
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


def footer_html(meta: dict[str, Any]) -> str:
    """The reproducibility footer: command, version, seed, inputs with sha256, time taken.

    Example:
        >>> "&lt;x&gt;" in footer_html({"command": "unjudged report <x>", "inputs": []})
        True
    """
    files = "".join(f"<li><code>{html.escape(str(f['file']))}</code> sha256 "
                    f"<code>{html.escape(str(f['sha256']))}</code></li>"
                    for f in meta.get("inputs", []))
    elapsed = meta.get("elapsed")
    took = f"{elapsed:.1f} s" if isinstance(elapsed, (int, float)) else "-"
    return (f'<footer id="reproducibility"><h2>5. Reproducibility</h2>'
            f"<p>Command: <code>{html.escape(str(meta.get('command', '')))}</code></p>"
            f"<p>unjudged {html.escape(str(meta.get('version', '')))}; seed "
            f"{html.escape(str(meta.get('seed', '')))}; bootstrap draws "
            f"{html.escape(str(meta.get('b', '')))}; computed in {took}</p>"
            f"<p>Inputs:</p><ul>{files}</ul></footer>")
