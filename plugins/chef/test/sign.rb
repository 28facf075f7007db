# Signs one request the way knife does, with mixlib-authentication (Debian's ruby-mixlib-authentication).
# Input (JSON on stdin): method, path, user_id, key_file, version, and body or body_file (the file is
# hashed as knife hashes the tarball of `knife supermarket share`). Output: the headers as JSON.
require 'openssl' # before mixlib: its "openssl/digest" alone breaks OpenSSL::Digest on Ruby 3.1
require 'json'
require 'time'
require 'mixlib/authentication/signedheaderauth'

req = JSON.parse($stdin.read)
args = {
  http_method: req.fetch('method').downcase.to_sym,
  path: req.fetch('path'),
  user_id: req.fetch('user_id'),
  timestamp: req['timestamp'] || Time.now.utc.iso8601,
  proto_version: req.fetch('version'),
  headers: { 'X-Ops-Server-API-Version' => '1' },
}
if req['body_file']
  args[:file] = File.open(req['body_file'], 'rb')
else
  args[:body] = req['body'] || ''
end
key = OpenSSL::PKey::RSA.new(File.read(req.fetch('key_file')))
algorithm = req.fetch('version') == '1.3' ? 'sha256' : 'sha1'
headers = Mixlib::Authentication::SignedHeaderAuth.signing_object(args).sign(key, sign_algorithm: algorithm, sign_version: req.fetch('version'))
headers['X-Ops-Server-API-Version'] = '1'
puts JSON.generate(headers)
