from unjudged.cli import main

main()
