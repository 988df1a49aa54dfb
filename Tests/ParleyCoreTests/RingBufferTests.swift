import ParleyCore
import Testing

@Suite struct RingBufferTests {
    @Test func firstInFirstOutAcrossTheWrap() {
        var ring = RingBuffer<Int>(capacity: 5)
        for i in 0..<3 { let added = ring.append(i); #expect(added) }
        let first = ring.popFirst(), second = ring.popFirst()
        #expect(first == 0 && second == 1)
        for i in 3..<7 { let added = ring.append(i); #expect(added) }  // wraps around the storage
        #expect(ring.count == 5)
        #expect(ring.isFull)
        let refused = !ring.append(99)
        #expect(refused, "a full ring refuses instead of growing")
        #expect(ring.first == 2)
        var out: [Int] = []
        while let x = ring.popFirst() { out.append(x) }
        #expect(out == [2, 3, 4, 5, 6])
        #expect(ring.isEmpty)
        let none = ring.popFirst()
        #expect(none == nil)
    }

    @Test func manyPassesStayConstantTime() {
        // 200,000 messages through a small ring: with removeFirst on an array this is the
        // quadratic drain the signaling inbox had.
        var ring = RingBuffer<Int>(capacity: 64)
        var next = 0, sum = 0
        for i in 0..<200_000 {
            if !ring.append(i) {
                while let x = ring.popFirst() { sum += x; next += 1 }
                ring.append(i)
            }
        }
        while let x = ring.popFirst() { sum += x; next += 1 }
        #expect(next == 200_000)
        #expect(sum == (0..<200_000).reduce(0, +))
    }
}
