import sys

from unjudged.cli._fast import main as plain_trec_eval

plain_trec_eval(sys.argv[1:])  # returns unless argv is a plain `trec_eval` call: click's then

from unjudged.cli import main  # noqa: E402

main()
