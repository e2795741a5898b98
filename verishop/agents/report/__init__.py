"""`verishop report`: one self-contained HTML file from run folders (plots, tables, and a page per
episode with its conversation, tool calls and the verifier's checks).

    load.py     run and episode folders -> records, read tolerantly
    stats.py    summary rows, failing checks, pass^k
    plots.py    matplotlib -> SVG data URIs
    episode.py  one episode's page
    page.py     the whole file
    cli.py      the command
"""
