// ParleyServer: see docs/ARCHITECTURE.md
