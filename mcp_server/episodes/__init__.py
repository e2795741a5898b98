"""Episodes and their lifecycle: the hub that opens and closes them, each episode's world
connection and transcript, recovery after a crash, the default episode for IDEs."""
