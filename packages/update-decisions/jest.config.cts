module.exports = {
  displayName: 'update-decisions',
  preset: '../../jest.preset.js',
};
