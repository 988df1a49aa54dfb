// AccessToken: see docs/ARCHITECTURE.md
