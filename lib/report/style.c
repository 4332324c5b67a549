#include "report/style.h"

/* Okabe & Ito's palette, distinguishable with the common colour-vision deficiencies.
 * Text never sits on a fill without a halo in the background colour, so it reads on
 * every fill in both schemes. */
static const char figure_css[] =
    ":root{color-scheme:light dark;--bg:#ffffff;--fg:#1a1a1a;--muted:#595959;--grid:#dcdcdc;"
    "--axis:#3c3c3c;--tex:rgba(0,0,0,.5);--rem:#f2f2f2;"
    "--c0:#E69F00;--c1:#56B4E9;--c2:#009E73;--c3:#F0E442;--c4:#0072B2;--c5:#D55E00;"
    "--c6:#CC79A7;--c7:#9a9a9a}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#17191c;--fg:#e9e9e9;--muted:#a9a9a9;"
    "--grid:#363a40;--axis:#c8c8c8;--tex:rgba(0,0,0,.55);--rem:#2a2d31;--c4:#3a8fd0}}\n"
    "svg.fig{color:var(--fg);background:var(--bg);"
    "font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,'Noto Sans',"
    "'Liberation Sans',sans-serif;font-size:12px;max-width:100%;height:auto}\n"
    "svg.fig text{fill:currentColor}\n"
    "svg.fig .ttl{font-size:14px;font-weight:600}\n"
    "svg.fig .grp{font-weight:600}\n"
    "svg.fig .sub,svg.fig .ax-t{fill:var(--muted)}\n"
    "svg.fig .tick{font-size:11px;font-variant-numeric:tabular-nums}\n"
    "svg.fig .grid{stroke:var(--grid);stroke-width:1}\n"
    "svg.fig .zero,svg.fig .axis{stroke:var(--axis);stroke-width:1}\n"
    "svg.fig .lbl{font-size:11px;paint-order:stroke;stroke:var(--bg);stroke-width:3px;"
    "stroke-linejoin:round}\n"
    "svg.fig .bar,svg.fig .slice,svg.fig .sw{stroke:var(--bg);stroke-width:.75}\n"
    "svg.fig .rem,svg.fig .encl{stroke:var(--muted);stroke-width:1;stroke-dasharray:3 2}\n"
    "svg.fig .zbar{stroke:var(--fg);stroke-width:2}\n"
    "svg.fig .tot{stroke:var(--fg);stroke-width:2}\n"
    "svg.fig .tex{stroke:var(--tex);stroke-width:1.3;fill:none}\n"
    "svg.fig .dot{fill:var(--tex);stroke:none}\n"
    "svg.fig .remfill{fill:var(--rem)}\n"
    "svg.fig .win{fill:var(--rem);stroke:var(--muted);stroke-width:1}\n"
    "svg.fig .busy{stroke:var(--bg);stroke-width:.5}\n"
    "svg.fig .remtex{stroke:var(--muted);stroke-width:1;fill:none}\n"
    "svg.fig .line{fill:none;stroke:var(--c4);stroke-width:1.5}\n"
    "svg.fig .line.line2{stroke:var(--c0);stroke-dasharray:4 2}\n"
    "svg.fig .pt{fill:var(--c4);stroke:var(--bg);stroke-width:1}\n"
    "svg.fig .peak{fill:var(--c5);stroke:var(--bg);stroke-width:1}\n"
    "svg.fig .pt2{fill:var(--c0);stroke:var(--bg);stroke-width:1}\n"
    "svg.fig .med{stroke:var(--c5);stroke-width:2;stroke-dasharray:6 3}\n"
    "svg.fig .ref{stroke:var(--muted);stroke-width:1.5;stroke-dasharray:2 3}\n"
    "svg.fig .leader{stroke:var(--muted);stroke-width:.75;fill:none}\n"
    "svg.fig .lane-sep{stroke:var(--grid);stroke-width:1}\n"
    "svg.fig .ci{fill:var(--c2);fill-opacity:.22;stroke:var(--c2);stroke-width:1.5}\n"
    "svg.fig .band{fill:var(--grid);fill-opacity:.55}\n"
    "svg.fig .pair{stroke:var(--muted);stroke-width:.75;stroke-opacity:.7}\n"
    "svg.fig .est{fill:var(--fg)}\n"
    "svg.fig .s0{fill:var(--c0)}svg.fig .s1{fill:var(--c1)}svg.fig .s2{fill:var(--c2)}"
    "svg.fig .s3{fill:var(--c3)}svg.fig .s4{fill:var(--c4)}svg.fig .s5{fill:var(--c5)}"
    "svg.fig .s6{fill:var(--c6)}svg.fig .s7{fill:var(--c7)}\n";

static const char page_css[] =
    "body{margin:0;background:var(--bg);color:var(--fg);"
    "font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,'Noto Sans',"
    "'Liberation Sans',sans-serif}\n"
    "main{max-width:980px;margin:0 auto;padding:16px 20px 48px}\n"
    "h1{font-size:1.6em;margin:.4em 0 .1em}h2{font-size:1.25em;margin:2em 0 .4em;"
    "border-bottom:1px solid var(--grid);padding-bottom:.2em}h3{font-size:1.05em;margin:1.4em 0 .3em}\n"
    "a{color:var(--c4)}code,.mono{font-family:ui-monospace,'SFMono-Regular',Menlo,Consolas,"
    "'DejaVu Sans Mono','Liberation Mono',monospace;font-size:.92em}\n"
    ".meta,figcaption,.note{color:var(--muted)}figure{margin:1em 0 1.6em}\n"
    "figcaption{font-size:.92em;max-width:760px}\n"
    ".note{border-left:3px solid var(--c0);padding:.2em .8em;margin:.8em 0}\n"
    "table{border-collapse:collapse;font-size:.9em;margin:.6em 0}\n"
    "th,td{padding:.25em .7em;border-bottom:1px solid var(--grid);text-align:left;vertical-align:top}\n"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "td.name{max-width:420px;overflow-wrap:anywhere}\n"
    ".meter{display:inline-block;height:.7em;background:var(--c1);vertical-align:baseline;"
    "margin-right:.4em;border:1px solid var(--muted)}\n"
    "dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em;font-size:.9em}\n"
    "dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}\n"
    "nav ul{padding-left:1.2em;margin:.3em 0}\n";

void sts_rpt_css_figures(sts_sbuf *b)
{
    sts_sbuf_put(b, figure_css, sizeof figure_css - 1);
}
void sts_rpt_css_page(sts_sbuf *b)
{
    sts_sbuf_put(b, page_css, sizeof page_css - 1);
}
