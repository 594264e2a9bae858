module.exports = {
  displayName: 'flags',
  preset: '../../jest.preset.js',
};
