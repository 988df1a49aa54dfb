// ParleyStore: see docs/ARCHITECTURE.md
