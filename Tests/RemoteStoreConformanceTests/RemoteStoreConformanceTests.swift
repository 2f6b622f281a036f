import InMemoryRemote
import RemoteProtocol
import RemoteStoreConformance
import Testing

struct RemoteStoreConformanceTests {
}
