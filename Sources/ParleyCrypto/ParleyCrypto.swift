// ParleyCrypto: see docs/ARCHITECTURE.md
