from hipgauge.cli import main

main()
