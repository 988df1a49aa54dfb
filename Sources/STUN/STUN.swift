// STUN: see docs/ARCHITECTURE.md
