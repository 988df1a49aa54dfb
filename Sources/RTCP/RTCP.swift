// RTCP: see docs/ARCHITECTURE.md
