// HTTPWire: see docs/ARCHITECTURE.md
