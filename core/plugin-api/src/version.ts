/**
 * The version of the plugin API this kernel implements. It moves independently of package
 * versions: a plugin states the range it was written against (`apiVersion: '^1.0.0'`) and the
 * kernel refuses to start when the range does not include this version.
 * @public
 */
export const PLUGIN_API_VERSION = '2.3.0';
