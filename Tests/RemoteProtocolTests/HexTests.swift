import RemoteProtocol
import Testing

struct HexTests {
    @Test("bytes become two hex digits each, most significant first, in either case")
    func encodesEveryByte() {
        let bytes: [UInt8] = [0x00, 0x0a, 0x7f, 0x80, 0xff]
        #expect(Hex.lowercase(bytes) == "000a7f80ff")
        #expect(Hex.uppercase(bytes) == "000A7F80FF")
        #expect(Hex.lowercase([UInt8]()) == "")
        let all = (0...255).map(UInt8.init)
        #expect(Hex.lowercase(all) == all.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined())
    }
}
