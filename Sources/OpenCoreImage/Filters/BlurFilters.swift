import CVips
import Foundation

enum BlurFilters {
    static let all: [FilterDefinition] = []
}
