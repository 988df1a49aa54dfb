// ParleyNet: see docs/ARCHITECTURE.md
