// ParleySRTP: see docs/ARCHITECTURE.md
