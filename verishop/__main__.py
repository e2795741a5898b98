from verishop.cli import main

main()
