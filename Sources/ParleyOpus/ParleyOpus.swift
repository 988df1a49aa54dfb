// ParleyOpus: see docs/ARCHITECTURE.md
