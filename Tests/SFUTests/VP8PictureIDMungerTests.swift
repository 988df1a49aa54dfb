import SFU
import Testing

/// RFC 7741 §4.2 picture IDs and TL0PICIDX stay continuous across source switches.
@Suite struct VP8PictureIDMungerTests {
    @Test func aSwitchContinuesFromTheLastPictureSent() {
        var munger = VP8PictureIDMunger()
        #expect(munger.map(pictureID: 100, tl0PictureIndex: 7) == (100, 7), "the first source passes unchanged")
        #expect(munger.map(pictureID: 100, tl0PictureIndex: 7) == (100, 7), "packets of one picture keep its ID")
        #expect(munger.map(pictureID: 101, tl0PictureIndex: 8) == (101, 8))
        munger.sourceChanged()
        #expect(munger.map(pictureID: 5000, tl0PictureIndex: 200) == (102, 9))
        #expect(munger.map(pictureID: 5001, tl0PictureIndex: 200) == (103, 9))
        munger.sourceChanged()
        #expect(munger.map(pictureID: 0x7FFF, tl0PictureIndex: 255) == (104, 10))
        #expect(munger.map(pictureID: 0, tl0PictureIndex: 0) == (105, 11), "the source's 15-bit wrap maps through")
    }

    @Test func wrapsIn15BitsAndPassesAbsentFields() {
        var munger = VP8PictureIDMunger()
        #expect(munger.map(pictureID: 0x7FFF, tl0PictureIndex: nil) == (0x7FFF, nil))
        munger.sourceChanged()
        #expect(munger.map(pictureID: 12, tl0PictureIndex: nil) == (0, nil), "continues past 0x7FFF to 0")
        #expect(munger.map(pictureID: nil, tl0PictureIndex: nil) == (nil, nil))
        #expect(munger.map(pictureID: 13, tl0PictureIndex: nil) == (1, nil))
    }
}
