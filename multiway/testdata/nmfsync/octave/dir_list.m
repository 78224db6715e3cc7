% dir_list(DIR): the DIR/p*.txt problem files, sorted by name.
function files = dir_list(d)
  s = dir(fullfile(d, 'p*.txt'));
  files = cellfun(@(x) fullfile(d, x), {s.name}, 'UniformOutput', false);
end
