from cmdsync.cli import main

main()
