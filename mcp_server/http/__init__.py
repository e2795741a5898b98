"""The HTTP side: the control app (`app`), the supervisor's front and its worker processes,
the relay between them, Host/Origin and token checks (`access`), and scenario admission."""
